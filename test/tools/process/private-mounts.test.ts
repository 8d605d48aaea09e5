import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfinementPlan } from '../../../src/host/confinement/index.js';
import { privateMounts } from '../../../src/tools/process/sandbox/private-mounts.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-private-mounts-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A plan writing these trees, with rho's own directories; nothing else of a plan is read. */
function plan(writable: readonly string[], privatePaths: readonly string[]): ConfinementPlan {
  return {
    writable: writable.map((tree) => ({ kind: 'tree' as const, path: path.join(dir, tree) })),
    privatePaths: privatePaths.map((own) => path.join(dir, own)),
  } as unknown as ConfinementPlan;
}

describe('privateMounts', () => {
  it('hides each of rho’s directories, and pins every directory between a writable root and it, outermost first', async () => {
    await mkdir(path.join(dir, 'ws/ci/.cache/rho'), { recursive: true });
    await mkdir(path.join(dir, 'state/rho'), { recursive: true });
    const { pins, hides } = privateMounts(plan(['ws', 'elsewhere'], ['ws/ci/.cache/rho', 'state/rho']));
    const at = (relative: string) => path.join(dir, relative);
    expect(pins).toEqual([
      { path: at('ws/ci'), writable: true, ifPresent: false },
      { path: at('ws/ci/.cache'), writable: true, ifPresent: false },
    ]);
    expect(hides).toEqual([at('ws/ci/.cache/rho'), at('state/rho')]);
  });

  it('pins nothing for a directory right below a writable root, and skips one that does not exist', async () => {
    await mkdir(path.join(dir, 'ws/rho'), { recursive: true });
    expect(privateMounts(plan(['ws'], ['ws/rho', 'missing/rho']))).toEqual({ pins: [], hides: [path.join(dir, 'ws/rho')] });
  });
});
