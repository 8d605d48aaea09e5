import { chmod, mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../../src/tools/process/sandbox/probe.js';
import { temporaryDirectories } from '../../support/cli.js';

const temp = temporaryDirectories('rho-probe-');
afterAll(() => temp.removeAll());

describe('the sandbox probe', () => {
  it('starts bubblewrap as a run’s process starts: the homes that exist hidden, a missing one left alone', async () => {
    const dir = await realpath(await temp.make());
    const home = path.join(dir, 'home');
    await mkdir(home);
    const log = path.join(dir, 'argv');
    // Answers as a confining bubblewrap would, after noting its arguments one a line.
    await writeFile(path.join(dir, 'bwrap'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${log}'\necho 1\n`);
    await chmod(path.join(dir, 'bwrap'), 0o755);
    const status = await probeSandbox({ mode: 'auto', pathVariable: dir, homes: [home, path.join(dir, 'nonexistent')] });
    expect(status).toMatchObject({ confined: true });
    const argv = (await readFile(log, 'utf8')).trimEnd().split('\n');
    const after = (flag: string) => argv.flatMap((arg, index) => (arg === flag ? [argv[index + 1]] : []));
    expect(after('--tmpfs')).toEqual(['/dev/shm', home]);
    expect(after('--remount-ro')).toEqual([home]);
    expect(argv).not.toContain(path.join(dir, 'nonexistent'));
    expect(argv).toContain('--unshare-net');
  });
});
