import { chmod, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandboxProbe } from '../../src/cli/early-probe.js';
import { homeDirectories } from '../../src/workflow/user-home.js';
import { newDigestKey } from '../../src/host/keyed-digest.js';
import { sandboxCircumstances } from '../../src/tools/process/sandbox/bubblewrap/probe-circumstances.js';
import { rememberedWorking, rememberWorking } from '../../src/tools/process/sandbox/probe-memory.js';
import { temporaryDirectories } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

/**
 * A `bwrap` named by RHO_BWRAP that notes each start in `starts` and answers as a confining
 * bubblewrap would (PID 1, a seccomp filter: mode 2), or fails with `works: false`; and an
 * environment with a cache of its own.
 */
async function fakeBubblewrap(works = true): Promise<{ configuredProgram: string; env: Record<string, string>; cache: string; homes: string[]; starts: () => Promise<number> }> {
  const dir = await directories.make();
  const log = path.join(dir, 'starts');
  await writeFile(log, '');
  const program = path.join(dir, 'bwrap');
  await writeFile(program, `#!/bin/sh\necho started >> '${log}'\n${works ? 'echo 1; echo 2' : 'echo "bwrap: No permissions to create new namespace" >&2; exit 1'}\n`);
  await chmod(program, 0o755);
  const cache = path.join(dir, 'cache');
  const env = { RHO_BWRAP: program, XDG_CACHE_HOME: cache, XDG_STATE_HOME: path.join(dir, 'state') };
  return { configuredProgram: program, env, cache, homes: homeDirectories(env), starts: async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean).length };
}

describe('startSandboxProbe', () => {
  it('starts bubblewrap at once and gives that answer to the first matching ask only', async () => {
    const { configuredProgram, env, homes, starts } = await fakeBubblewrap();
    const probe = startSandboxProbe(undefined, env)!;
    await expect.poll(starts).toBe(1);
    expect(await probe({ mode: 'auto', hostEnv: env, homes })).toEqual({ confined: true, mode: 'auto', backend: 'bubblewrap', location: configuredProgram });
    expect(await starts()).toBe(1);
    expect(await probe({ mode: 'auto', hostEnv: env, homes })).toMatchObject({ confined: true });
    expect(await starts()).toBe(2);
  });

  it('probes again for another question', async () => {
    const { env, homes, starts } = await fakeBubblewrap();
    const probe = startSandboxProbe('auto', env)!;
    expect(await probe({ mode: 'required', hostEnv: env, homes })).toMatchObject({ confined: true, mode: 'required' });
    expect(await probe({ mode: 'auto', hostEnv: { ...env, RHO_BWRAP: '/nonexistent/bwrap' } })).toMatchObject({ confined: false, mode: 'auto' });
    expect(await starts()).toBe(2);
  });

  it('starts nothing with --sandbox off', async () => {
    const { env, starts } = await fakeBubblewrap();
    expect(startSandboxProbe('off', env)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await starts()).toBe(0);
  });

  it('remembers a sandbox that worked, for the same program, within the hour', async () => {
    const { configuredProgram, env, cache, homes, starts } = await fakeBubblewrap();
    const confined = { confined: true, mode: 'auto', backend: 'bubblewrap', location: configuredProgram };
    expect(await startSandboxProbe(undefined, env)!({ mode: 'auto', hostEnv: env, homes })).toEqual(confined);
    expect(await readdir(path.join(cache, 'rho'))).toEqual(['sandbox-probe']);
    // The next run does not start bubblewrap.
    expect(await startSandboxProbe(undefined, env)!({ mode: 'auto', hostEnv: env, homes })).toEqual(confined);
    expect(await starts()).toBe(1);
    // A changed program is probed again.
    const later = new Date(Date.now() + 5000);
    await utimes(configuredProgram, later, later);
    await startSandboxProbe(undefined, env)!({ mode: 'auto', hostEnv: env, homes });
    expect(await starts()).toBe(2);
    // A memory not sealed with the user's key is not believed: one written by someone else, or with its time changed.
    const memory = path.join(cache, 'rho', 'sandbox-probe');
    const sealed = await readFile(memory, 'utf8');
    const body = sealed.slice(sealed.indexOf('\n') + 1);
    await writeFile(memory, sealed.replace(body, body.replace(/^\d+/, String(Date.now() + 60 * 60 * 1000))));
    await startSandboxProbe(undefined, env)!({ mode: 'auto', hostEnv: env, homes });
    expect(await starts()).toBe(3);
    await writeFile(memory, body);
    await startSandboxProbe(undefined, env)!({ mode: 'auto', hostEnv: env, homes });
    expect(await starts()).toBe(4);
  });

  it('holds a memory for an hour at most, from the time sealed in it', async () => {
    const { configuredProgram } = await fakeBubblewrap();
    const dir = await directories.make();
    const memory = { file: path.join(dir, 'sandbox-probe'), key: newDigestKey() };
    const circumstances = sandboxCircumstances(configuredProgram, ['--unshare-pid'])!;
    const now = Date.now();
    rememberWorking(memory, circumstances, now);
    expect(rememberedWorking(memory, circumstances, now + 59 * 60 * 1000)).toBe(true);
    expect(rememberedWorking(memory, circumstances, now + 61 * 60 * 1000)).toBe(false);
    expect(rememberedWorking(memory, circumstances, now - 1)).toBe(false);
    expect(rememberedWorking({ ...memory, key: newDigestKey() }, circumstances, now)).toBe(false);
    expect(rememberedWorking(memory, `${circumstances} `, now)).toBe(false);
  });

  it('never remembers a sandbox that did not work', async () => {
    const { env, cache, homes, starts } = await fakeBubblewrap(false);
    for (let run = 1; run <= 2; run++) {
      expect(await startSandboxProbe(undefined, env)!({ mode: 'auto', hostEnv: env, homes })).toMatchObject({ confined: false });
      expect(await starts()).toBe(run);
    }
    expect(await readdir(path.join(cache, 'rho'))).not.toContain('sandbox-probe');
  });
});
