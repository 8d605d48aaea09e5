import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandboxProbe } from '../../src/cli/early-probe.js';
import { temporaryDirectories } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

/** A PATH whose `bwrap` notes each start in `starts` and answers as a confining bubblewrap would. */
async function fakeBubblewrap(): Promise<{ pathVariable: string; starts: () => Promise<number> }> {
  const dir = await directories.make();
  const log = path.join(dir, 'starts');
  await writeFile(log, '');
  await writeFile(path.join(dir, 'bwrap'), `#!/bin/sh\necho started >> '${log}'\necho 1\n`);
  await chmod(path.join(dir, 'bwrap'), 0o755);
  return { pathVariable: dir, starts: async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean).length };
}

describe('startSandboxProbe', () => {
  it('starts bubblewrap at once and gives that answer to the first matching ask only', async () => {
    const { pathVariable, starts } = await fakeBubblewrap();
    const probe = startSandboxProbe(undefined, pathVariable)!;
    await expect.poll(starts).toBe(1);
    expect(await probe({ mode: 'auto', pathVariable })).toEqual({ confined: true, mode: 'auto', program: path.join(pathVariable, 'bwrap') });
    expect(await starts()).toBe(1);
    expect(await probe({ mode: 'auto', pathVariable })).toMatchObject({ confined: true });
    expect(await starts()).toBe(2);
  });

  it('probes again for another question', async () => {
    const { pathVariable, starts } = await fakeBubblewrap();
    const probe = startSandboxProbe('auto', pathVariable)!;
    expect(await probe({ mode: 'required', pathVariable })).toMatchObject({ confined: true, mode: 'required' });
    expect(await probe({ mode: 'auto', pathVariable: '/nonexistent' })).toMatchObject({ confined: false, mode: 'auto' });
    expect(await starts()).toBe(2);
  });

  it('starts nothing with --sandbox off', async () => {
    const { pathVariable, starts } = await fakeBubblewrap();
    expect(startSandboxProbe('off', pathVariable)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await starts()).toBe(0);
  });
});
