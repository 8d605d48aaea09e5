import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveExecutable, searchDirectories } from '../../../src/tools/process/executable.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-exe-')));
  for (const sub of ['first', 'second', 'cwd']) await mkdir(path.join(dir, sub));
  await writeFile(path.join(dir, 'first', 'tool'), '');
  await writeFile(path.join(dir, 'second', 'tool'), '#!/bin/sh\n');
  await chmod(path.join(dir, 'second', 'tool'), 0o755);
  await writeFile(path.join(dir, 'cwd', 'tool'), '#!/bin/sh\n');
  await chmod(path.join(dir, 'cwd', 'tool'), 0o755);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('resolveExecutable', () => {
  it('searches the given PATH in order, skipping files that are not executable', async () => {
    const pathVariable = [path.join(dir, 'first'), path.join(dir, 'second')].join(':');
    const selection = await resolveExecutable('tool', { pathVariable, cwd: path.join(dir, 'cwd'), writableRoots: [] });
    expect(selection).toEqual({ requested: 'tool', resolved: path.join(dir, 'second', 'tool'), lookup: 'path_search' });
  });

  it('never finds a program through an empty or relative PATH entry (the cwd)', async () => {
    const cwd = path.join(dir, 'cwd');
    await expect(resolveExecutable('tool', { pathVariable: `:.:cwd:${path.join(dir, 'first')}`, cwd, writableRoots: [] })).rejects.toMatchObject({ kind: 'not_found' });
    expect(searchDirectories(`:.:cwd:/usr/bin`)).toEqual(['/usr/bin']);
  });

  it('searches each directory once, in its normalized spelling, and resolves to the normalized path', async () => {
    expect(searchDirectories('/usr/bin:/usr//bin/:/bin:/:/usr/bin')).toEqual(['/usr/bin', '/bin', '/']);
    const second = path.join(dir, 'second');
    const pathVariable = [`${path.join(dir, 'first')}/`, `${second}//`, second].join(':');
    const selection = await resolveExecutable('tool', { pathVariable, cwd: path.join(dir, 'cwd'), writableRoots: [] });
    expect(selection).toEqual({ requested: 'tool', resolved: path.join(second, 'tool'), lookup: 'path_search' });
    await expect(resolveExecutable('absent', { pathVariable, cwd: dir, writableRoots: [] })).rejects.toThrow(/searched 2 directories/);
  });

  it('takes a name with a slash as an exact path relative to the cwd', async () => {
    const selection = await resolveExecutable('./tool', { pathVariable: '', cwd: path.join(dir, 'cwd'), writableRoots: [] });
    expect(selection).toEqual({ requested: './tool', resolved: path.join(dir, 'cwd', 'tool'), lookup: 'exact' });
    await expect(resolveExecutable('../first/tool', { pathVariable: '', cwd: path.join(dir, 'cwd'), writableRoots: [] })).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('marks a program found under a writable root, directly or through a link, so bare names do not cover it', async () => {
    const workspace = path.join(dir, 'workspace');
    await mkdir(path.join(workspace, 'node_modules', '.bin'), { recursive: true });
    await writeFile(path.join(workspace, 'node_modules', '.bin', 'tool'), '#!/bin/sh\n');
    await chmod(path.join(workspace, 'node_modules', '.bin', 'tool'), 0o755);
    const pathVariable = [path.join(workspace, 'node_modules', '.bin'), path.join(dir, 'second')].join(':');
    const planted = await resolveExecutable('tool', { pathVariable, cwd: dir, writableRoots: [workspace] });
    expect(planted).toEqual({ requested: 'tool', resolved: path.join(workspace, 'node_modules', '.bin', 'tool'), lookup: 'path_search', writable: true });
    await symlink(path.join(workspace, 'node_modules', '.bin', 'tool'), path.join(dir, 'first', 'linked'));
    const linked = await resolveExecutable('linked', { pathVariable: path.join(dir, 'first'), cwd: dir, writableRoots: [workspace] });
    expect(linked.writable).toBe(true);
    const system = await resolveExecutable('tool', { pathVariable: path.join(dir, 'second'), cwd: dir, writableRoots: [workspace] });
    expect(system).not.toHaveProperty('writable');
  });

  it('says which PATH it searched when nothing is found', async () => {
    await expect(resolveExecutable('tool', { pathVariable: undefined, cwd: dir, writableRoots: [] })).rejects.toThrow(/not found on PATH \(searched 0 directories\)/);
  });
});
