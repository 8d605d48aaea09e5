import { chmod, link, readdir, readFile, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { invoke, makeFileBox, writeTree, type FileBox } from './harness.js';

let box: FileBox;
beforeEach(async () => {
  box = await makeFileBox();
});
afterEach(async () => {
  await box.cleanup();
});

const write = (args: Record<string, unknown>, allow = ['write']) => invoke(box.host({ allow }), 'write_file', args);

describe('write_file', () => {
  it('creates a file and reports a unified diff from /dev/null', async () => {
    const result = await write({ path: 'hello.txt', content: 'hi\n' });
    expect(result.output?.data).toEqual({ path: 'hello.txt', bytes: 3 });
    expect(result.output?.metadata?.['diff']).toContain('--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1,1 @@\n+hi\n');
    expect(await readFile(path.join(box.ws, 'hello.txt'), 'utf8')).toBe('hi\n');
  });

  it('overwrites atomically, keeps the permissions and leaves no temp file behind', async () => {
    await writeTree(box.ws, { 'conf.txt': 'old\n' });
    await chmod(path.join(box.ws, 'conf.txt'), 0o640);
    const result = await write({ path: 'conf.txt', content: 'new\n' });
    expect(result.output?.metadata?.['diff']).toContain('-old\n+new\n');
    expect((await stat(path.join(box.ws, 'conf.txt'))).mode & 0o777).toBe(0o640);
    expect(await readdir(box.ws)).toEqual(['conf.txt']);
  });

  it('replaces a hard-linked name instead of writing into the shared inode', async () => {
    await writeTree(box.outside, { 'original.txt': 'keep me' });
    await link(path.join(box.outside, 'original.txt'), path.join(box.ws, 'linked.txt'));
    await write({ path: 'linked.txt', content: 'changed' });
    expect(await readFile(path.join(box.ws, 'linked.txt'), 'utf8')).toBe('changed');
    expect(await readFile(path.join(box.outside, 'original.txt'), 'utf8')).toBe('keep me');
  });

  it('appends, and refuses create over an existing file with a conflict', async () => {
    await writeTree(box.ws, { 'log.txt': 'a\n' });
    const appended = await write({ path: 'log.txt', content: 'b\n', mode: 'append' });
    expect(appended.output?.data).toEqual({ path: 'log.txt', bytes: 2 });
    expect(await readFile(path.join(box.ws, 'log.txt'), 'utf8')).toBe('a\nb\n');
    const created = await write({ path: 'log.txt', content: 'x', mode: 'create' });
    expect(created.error?.kind).toBe('conflict');
    expect(created.error?.message).toContain('already exists');
  });

  it('creates parent directories only when asked', async () => {
    const refused = await write({ path: 'a/b/c.txt', content: 'x' });
    expect(refused.error?.kind).toBe('not_found');
    expect(refused.error?.message).toContain('create_dirs: true');
    const created = await write({ path: 'a/b/c.txt', content: 'x', create_dirs: true });
    expect(created.status).toBe('success');
    expect(await readFile(path.join(box.ws, 'a/b/c.txt'), 'utf8')).toBe('x');
  });

  it('writes through a link inside the workspace to its target, keeping the link', async () => {
    await writeTree(box.ws, { 'real.txt': 'old' });
    await symlink('real.txt', path.join(box.ws, 'alias.txt'));
    const result = await write({ path: 'alias.txt', content: 'new' });
    expect(result.output?.data).toMatchObject({ path: 'real.txt' });
    expect(await readFile(path.join(box.ws, 'real.txt'), 'utf8')).toBe('new');
    expect((await readdir(box.ws)).sort()).toEqual(['alias.txt', 'real.txt']);
  });

  it('refuses directories, and a deny matching the written or the resolved path', async () => {
    await writeTree(box.ws, { 'dir/x': '', '.env': 'TOKEN=1', 'plain.txt': 'plain' });
    await symlink('.env', path.join(box.ws, 'innocent'));
    await symlink('plain.txt', path.join(box.ws, 'guarded'));
    expect((await write({ path: 'dir', content: 'x' })).error?.message).toContain('is a directory');
    const host = box.host({ allow: ['write'], deny: ['write(.env)', 'write(guarded)'] });
    const resolvedMatch = await invoke(host, 'write_file', { path: 'innocent', content: 'pwned' });
    expect(resolvedMatch.error?.kind).toBe('policy_denied');
    const writtenMatch = await invoke(host, 'write_file', { path: 'guarded', content: 'pwned' });
    expect(writtenMatch.error?.kind).toBe('policy_denied');
    expect(await readFile(path.join(box.ws, '.env'), 'utf8')).toBe('TOKEN=1');
    expect(await readFile(path.join(box.ws, 'plain.txt'), 'utf8')).toBe('plain');
  });

  it('needs the write rule: read alone is not enough', async () => {
    const result = await write({ path: 'x.txt', content: 'x' }, ['read']);
    expect(result.status).toBe('denied');
    expect(result.error?.message).toContain('write(x.txt)');
  });
});
