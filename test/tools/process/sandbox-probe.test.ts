import { chmod, mkdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveBubblewrap } from '../../../src/tools/process/sandbox/bubblewrap/probe.js';
import { distrustWritableProgram, probeSandbox } from '../../../src/tools/process/sandbox/probe.js';
import { systemDirectories } from '../../../src/tools/process/trusted-programs.js';
import { temporaryDirectories } from '../../support/cli.js';

const temp = temporaryDirectories('rho-probe-');
afterAll(() => temp.removeAll());

/** An executable file at `file` (its directory created). */
async function writeProgram(file: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, '#!/bin/sh\n');
  await chmod(file, 0o755);
}

describe('which bubblewrap a run trusts', () => {
  it('is the one RHO_BWRAP names by absolute path, else one in the system directories, never one on PATH', async () => {
    const dir = await temp.make();
    const configured = path.join(dir, 'bwrap');
    await writeProgram(configured);
    expect(resolveBubblewrap(configured)).toEqual({ program: configured });
    const found = resolveBubblewrap(undefined);
    expect('program' in found && systemDirectories.includes(path.dirname(found.program))).toBe(true);
    expect(resolveBubblewrap('bwrap')).toMatchObject({ reason: 'RHO_BWRAP=bwrap is not the absolute path of an executable file' });
    expect(resolveBubblewrap(path.join(dir, 'missing'))).toMatchObject({ reason: expect.stringContaining('is not the absolute path of an executable file') });
  });

  it('is not trusted under the workspace or a granted root, as named or through a link', async () => {
    const dir = await temp.make();
    const workspace = path.join(dir, 'work');
    const planted = path.join(workspace, 'bwrap');
    await writeProgram(planted);
    const confined = (location: string) => ({ confined: true as const, mode: 'auto' as const, backend: 'bubblewrap', location });
    expect(distrustWritableProgram(confined(planted), [workspace])).toMatchObject({
      confined: false,
      reason: expect.stringContaining(`bubblewrap at ${planted} lies where steps can write`),
    });
    // A link outside to a program inside is still the program inside.
    const link = path.join(dir, 'bwrap-link');
    await symlink(planted, link);
    expect(distrustWritableProgram(confined(link), [workspace])).toMatchObject({ confined: false });
    expect(distrustWritableProgram(confined('/usr/bin/bwrap'), [workspace])).toEqual(confined('/usr/bin/bwrap'));
    const unconfined = { confined: false as const, mode: 'auto' as const, reason: 'off' };
    expect(distrustWritableProgram(unconfined, [workspace])).toBe(unconfined);
  });
});

describe('the sandbox probe', () => {
  it('starts bubblewrap as a run’s process starts: the homes that exist hidden, a missing one left alone', async () => {
    const dir = await realpath(await temp.make());
    const home = path.join(dir, 'home');
    await mkdir(home);
    const log = path.join(dir, 'argv');
    // Answers as a confining bubblewrap would (PID 1, a seccomp filter: mode 2), after noting its arguments one a line.
    await writeFile(path.join(dir, 'bwrap'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${log}'\necho 1; echo 2\n`);
    await chmod(path.join(dir, 'bwrap'), 0o755);
    const status = await probeSandbox({ mode: 'auto', hostEnv: { RHO_BWRAP: path.join(dir, 'bwrap') }, homes: [home, path.join(dir, 'nonexistent')] });
    expect(status).toMatchObject({ confined: true });
    const argv = (await readFile(log, 'utf8')).trimEnd().split('\n');
    const valuesOf = (flag: string) => argv.flatMap((arg, index) => (arg === flag ? [argv[index + 1]] : []));
    expect(valuesOf('--tmpfs')).toEqual(['/dev/shm', home]);
    expect(valuesOf('--remount-ro')).toEqual([home]);
    expect(argv).not.toContain(path.join(dir, 'nonexistent'));
    expect(argv).toContain('--unshare-net');
    expect(valuesOf('--seccomp')).toEqual(['3']);
  });
});

describe('a probe that does not answer in time', () => {
  /** A `bwrap` that never answers: `exec` keeps it one process, so the probe's SIGKILL ends it. */
  async function silentBubblewrap(): Promise<string> {
    const dir = await realpath(await temp.make());
    const program = path.join(dir, 'bwrap');
    await writeFile(program, '#!/bin/sh\nexec sleep 30\n');
    await chmod(program, 0o755);
    return program;
  }

  it.each(['auto', 'required'] as const)('leaves the answer unknown, so sandbox: %s refuses to run rather than run unconfined', async (mode) => {
    const program = await silentBubblewrap();
    const probing = probeSandbox({ mode, hostEnv: { RHO_BWRAP: program }, homes: [], timeoutMs: 200 });
    await expect(probing).rejects.toMatchObject({
      name: 'HostError',
      kind: 'usage',
      message: `sandbox: ${mode}, but ${program} did not answer its probe within 0.2 s, so whether it confines here is unknown; nothing was run: run again when the machine is less busy, or choose --sandbox off to run unconfined`,
    });
  });

  it('is not asked at all under sandbox: off', async () => {
    const program = await silentBubblewrap();
    await expect(probeSandbox({ mode: 'off', hostEnv: { RHO_BWRAP: program }, timeoutMs: 200 })).resolves.toMatchObject({ confined: false, mode: 'off' });
  });

  it('differs from a bubblewrap that answers and fails, which leaves auto unconfined with the reason', async () => {
    const dir = await realpath(await temp.make());
    const program = path.join(dir, 'bwrap');
    await writeFile(program, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n');
    await chmod(program, 0o755);
    const status = await probeSandbox({ mode: 'auto', hostEnv: { RHO_BWRAP: program }, homes: [], timeoutMs: 10_000 });
    expect(status).toMatchObject({ confined: false, mode: 'auto', reason: expect.stringContaining('cannot create a user namespace') });
  });
});
