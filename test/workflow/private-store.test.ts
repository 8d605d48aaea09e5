import { chmod, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PrivateStore } from '../../src/workflow/private/store.js';
import { temporaryDirectories } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

async function places(): Promise<{ state: string; cache: string }> {
  const dir = await directories.make();
  return { state: path.join(dir, 'state', 'rho'), cache: path.join(dir, 'cache', 'rho') };
}

const mode = async (file: string) => ((await stat(file)).mode & 0o777).toString(8);

describe('rho’s private store', () => {
  it('makes its directories and key private to the user, and reads the same key back', async () => {
    const where = await places();
    const store = PrivateStore.open(where);
    expect(store.paths).toEqual([where.state, where.cache]);
    expect([await mode(where.state), await mode(where.cache), await mode(path.join(where.state, 'key'))]).toEqual(['700', '700', '600']);
    expect(PrivateStore.open(where).key.equals(store.key)).toBe(true);
    expect(store.key).toHaveLength(32);
  });

  it('makes a directory another user could enter private again', async () => {
    const where = await places();
    PrivateStore.open(where);
    await chmod(where.cache, 0o755);
    PrivateStore.open(where);
    expect(await mode(where.cache)).toBe('700');
  });

  it('replaces a key anyone else may read, one that is a link, or one that is not a key', async () => {
    const where = await places();
    const keyFile = path.join(where.state, 'key');
    let key = PrivateStore.open(where).key;
    const replaced = async (spoil: () => Promise<void>) => {
      await spoil();
      const next = PrivateStore.open(where).key;
      expect(next.equals(key)).toBe(false);
      expect(await mode(keyFile)).toBe('600');
      key = next;
    };
    await replaced(() => chmod(keyFile, 0o644));
    await replaced(async () => {
      const planted = path.join(path.dirname(where.state), 'planted');
      await writeFile(planted, `${'ab'.repeat(32)}\n`, { mode: 0o600 });
      await rm(keyFile);
      await symlink(planted, keyFile);
    });
    await replaced(() => writeFile(keyFile, 'not a key\n', { mode: 0o600 }));
    expect(await readFile(keyFile, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
  });

  it('names a workspace’s directory for a person to find, and apart from every other workspace’s', async () => {
    const store = PrivateStore.open(await places());
    const one = store.workspaceDirectory('/home/me/project');
    expect(path.dirname(one)).toBe(path.join(store.stateDirectory, 'workspaces'));
    expect(path.basename(one)).toMatch(/^project-[0-9a-f]{16}$/);
    expect(store.workspaceDirectory('/srv/project')).not.toBe(one);
    expect(path.basename(store.workspaceDirectory('/'))).toMatch(/^root-[0-9a-f]{16}$/);
  });
});
