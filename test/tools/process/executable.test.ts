import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
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
    const selection = await resolveExecutable('tool', { pathVariable, cwd: path.join(dir, 'cwd') });
    expect(selection).toEqual({ requested: 'tool', resolved: path.join(dir, 'second', 'tool'), lookup: 'path_search' });
  });

  it('never finds a program through an empty or relative PATH entry (the cwd)', async () => {
    const cwd = path.join(dir, 'cwd');
    await expect(resolveExecutable('tool', { pathVariable: `:.:cwd:${path.join(dir, 'first')}`, cwd })).rejects.toMatchObject({ kind: 'not_found' });
    expect(searchDirectories(`:.:cwd:/usr/bin`)).toEqual(['/usr/bin']);
  });

  it('takes a name with a slash as an exact path relative to the cwd', async () => {
    const selection = await resolveExecutable('./tool', { pathVariable: '', cwd: path.join(dir, 'cwd') });
    expect(selection).toEqual({ requested: './tool', resolved: path.join(dir, 'cwd', 'tool'), lookup: 'exact' });
    await expect(resolveExecutable('../first/tool', { pathVariable: '', cwd: path.join(dir, 'cwd') })).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('says which PATH it searched when nothing is found', async () => {
    await expect(resolveExecutable('tool', { pathVariable: undefined, cwd: dir })).rejects.toThrow(/not found on PATH \(searched 0 directories\)/);
  });
});
