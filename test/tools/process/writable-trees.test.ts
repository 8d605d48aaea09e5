import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResolvedPlan } from '../../../src/host/confinement/index.js';
import { prepareWritableTrees } from '../../../src/tools/process/sandbox/writable-trees.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-trees-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A plan granting these trees (and files) for writing; nothing else of a plan is read. */
function planWriting(trees: readonly string[], files: readonly string[] = []): ResolvedPlan {
  const writable = [
    ...trees.map((tree) => ({ kind: 'tree' as const, path: path.join(dir, tree) })),
    ...files.map((file) => ({ kind: 'file' as const, path: path.join(dir, file) })),
  ];
  return { writable } as unknown as ResolvedPlan;
}

const exists = (relative: string) => existsSync(path.join(dir, relative));

describe('prepareWritableTrees', () => {
  it('creates missing granted trees for the mount, and removes every level it created once released empty', () => {
    const trees = prepareWritableTrees(planWriting(['build/out/js', 'man'], ['notes.txt']));
    expect([exists('build/out/js'), exists('man')]).toEqual([true, true]);
    // A granted file is not created: a process creates it or it stays absent.
    expect(exists('notes.txt')).toBe(false);
    trees.release();
    expect([exists('build'), exists('man')]).toEqual([false, false]);
    trees.release();
  });

  it('keeps what the process wrote into, and the levels above it', async () => {
    const trees = prepareWritableTrees(planWriting(['build/out', 'man']));
    await writeFile(path.join(dir, 'build/out/app.js'), 'built\n');
    trees.release();
    expect(exists('build/out/app.js')).toBe(true);
    expect(exists('man')).toBe(false);
  });

  it('never removes a directory that was there before', async () => {
    await mkdir(path.join(dir, 'build'));
    const trees = prepareWritableTrees(planWriting(['build', 'build/new']));
    trees.release();
    expect(exists('build')).toBe(true);
    expect(exists('build/new')).toBe(false);
  });

  it('leaves a created tree in place while another sandbox still mounts it', () => {
    const first = prepareWritableTrees(planWriting(['out/a']));
    const second = prepareWritableTrees(planWriting(['out/b', 'out/a']));
    first.release();
    expect([exists('out/a'), exists('out/b')]).toEqual([true, true]);
    second.release();
    expect(exists('out')).toBe(false);
  });

  it('creates no directory through a link: one standing where a level was missing refuses the launch', async () => {
    await mkdir(path.join(dir, 'victim'));
    await mkdir(path.join(dir, 'out'));
    await symlink(path.join(dir, 'victim'), path.join(dir, 'out/cache'));
    expect(() => prepareWritableTrees(planWriting(['out/cache/deep']))).toThrow(/out\/cache is a symbolic link; rho creates no directory through it/);
    expect(exists('victim/deep')).toBe(false);
  });
});
