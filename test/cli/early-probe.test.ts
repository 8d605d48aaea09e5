import { chmod, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandboxProbe } from '../../src/cli/early-probe.js';
import { homeDirectories } from '../../src/workflow/user-home.js';
import { temporaryDirectories } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

/**
 * A PATH whose `bwrap` notes each start in `starts` and answers as a confining bubblewrap would
 * (or fails, with `works: false`), and an environment with a cache of its own.
 */
async function fakeBubblewrap(works = true): Promise<{ pathVariable: string; env: Record<string, string>; cache: string; homes: string[]; starts: () => Promise<number> }> {
  const dir = await directories.make();
  const log = path.join(dir, 'starts');
  await writeFile(log, '');
  await writeFile(path.join(dir, 'bwrap'), `#!/bin/sh\necho started >> '${log}'\n${works ? 'echo 1' : 'echo "bwrap: No permissions to create new namespace" >&2; exit 1'}\n`);
  await chmod(path.join(dir, 'bwrap'), 0o755);
  const cache = path.join(dir, 'cache');
  const env = { PATH: dir, XDG_CACHE_HOME: cache };
  return { pathVariable: dir, env, cache, homes: homeDirectories(env), starts: async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean).length };
}

describe('startSandboxProbe', () => {
  it('starts bubblewrap at once and gives that answer to the first matching ask only', async () => {
    const { pathVariable, env, homes, starts } = await fakeBubblewrap();
    const probe = startSandboxProbe(undefined, env)!;
    await expect.poll(starts).toBe(1);
    expect(await probe({ mode: 'auto', pathVariable, homes })).toEqual({ confined: true, mode: 'auto', program: path.join(pathVariable, 'bwrap') });
    expect(await starts()).toBe(1);
    expect(await probe({ mode: 'auto', pathVariable, homes })).toMatchObject({ confined: true });
    expect(await starts()).toBe(2);
  });

  it('probes again for another question', async () => {
    const { pathVariable, env, starts } = await fakeBubblewrap();
    const probe = startSandboxProbe('auto', env)!;
    expect(await probe({ mode: 'required', pathVariable })).toMatchObject({ confined: true, mode: 'required' });
    expect(await probe({ mode: 'auto', pathVariable: '/nonexistent' })).toMatchObject({ confined: false, mode: 'auto' });
    expect(await starts()).toBe(2);
  });

  it('starts nothing with --sandbox off', async () => {
    const { env, starts } = await fakeBubblewrap();
    expect(startSandboxProbe('off', env)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await starts()).toBe(0);
  });

  it('remembers a sandbox that worked, for the same program, within the hour', async () => {
    const { pathVariable, env, cache, homes, starts } = await fakeBubblewrap();
    const confined = { confined: true, mode: 'auto', program: path.join(pathVariable, 'bwrap') };
    expect(await startSandboxProbe(undefined, env)!({ mode: 'auto', pathVariable, homes })).toEqual(confined);
    expect(await readdir(path.join(cache, 'rho'))).toEqual(['sandbox-probe']);
    // The next run does not start bubblewrap.
    expect(await startSandboxProbe(undefined, env)!({ mode: 'auto', pathVariable, homes })).toEqual(confined);
    expect(await starts()).toBe(1);
    // A changed program is probed again.
    const later = new Date(Date.now() + 5000);
    await utimes(path.join(pathVariable, 'bwrap'), later, later);
    await startSandboxProbe(undefined, env)!({ mode: 'auto', pathVariable, homes });
    expect(await starts()).toBe(2);
    // So is a memory older than an hour.
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(path.join(cache, 'rho', 'sandbox-probe'), old, old);
    await startSandboxProbe(undefined, env)!({ mode: 'auto', pathVariable, homes });
    expect(await starts()).toBe(3);
  });

  it('never remembers a sandbox that did not work', async () => {
    const { pathVariable, env, cache, homes, starts } = await fakeBubblewrap(false);
    for (let run = 1; run <= 2; run++) {
      expect(await startSandboxProbe(undefined, env)!({ mode: 'auto', pathVariable, homes })).toMatchObject({ confined: false });
      expect(await starts()).toBe(run);
    }
    await expect(readdir(path.join(cache, 'rho'))).rejects.toThrow(/ENOENT/);
  });
});
