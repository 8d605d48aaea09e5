import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunTarget } from '../../src/cli/run-target.js';
import { HostError } from '../../src/host/errors.js';
import { findWorkflowFile } from '../../src/workflow/discover.js';
import { temporaryDirectories, writeFiles } from '../support/cli.js';

// How `rho run [FILE] [TASK] [ARG...]` reads its words, and where it finds rho.yml when no FILE
// is named: in the directory rho starts in or the nearest one above, as just finds its justfile.
const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

const project = `version: 1\nname: project\ntasks:\n  build:\n    aliases: [b]\n    steps:\n      - { id: a, tool: echo, with: { value: a } }\n`;
let root = '';
let deeper = '';
beforeAll(async () => {
  root = await directories.make();
  deeper = path.join(root, 'crates', 'cli');
  await writeFiles(root, { 'rho.yml': project, 'other.yml': project, 'notes.txt': 'not a workflow\n' });
  await mkdir(deeper, { recursive: true });
  // A file named like a task: the task wins, ./build names the file.
  await writeFile(path.join(deeper, 'build'), '');
});

function usageMessage(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => {
      throw new Error('expected a usage error');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(HostError);
      expect((error as HostError).kind).toBe('usage');
      return (error as Error).message;
    },
  );
}

describe('finding the workflow file', () => {
  it('takes rho.yml in the directory or the nearest one above', async () => {
    expect(await findWorkflowFile(root)).toBe(path.join(root, 'rho.yml'));
    expect(await findWorkflowFile(deeper)).toBe(path.join(root, 'rho.yml'));
  });

  it('takes rho.yaml too, the nearest file winning over one further up', async () => {
    const nested = path.join(root, 'nested');
    await writeFiles(nested, { 'rho.yaml': project, 'sub/.keep': '' });
    expect(await findWorkflowFile(path.join(nested, 'sub'))).toBe(path.join(nested, 'rho.yaml'));
  });

  it('refuses a directory that holds both names', async () => {
    const both = await directories.make();
    await writeFiles(both, { 'rho.yml': project, 'rho.yaml': project });
    expect(await usageMessage(findWorkflowFile(both))).toBe(`${both} holds both rho.yml and rho.yaml; keep one, or name the file (rho run FILE)`);
  });

  it('finds nothing where no directory up to the root has one', async () => {
    expect(await findWorkflowFile(await directories.make())).toBeUndefined();
  });
});

describe('rho run [FILE] [TASK] [ARG...]', () => {
  it('runs the default task of the file found when no word is given, naming it relative to where rho started', async () => {
    expect(await resolveRunTarget([], deeper)).toEqual({ file: path.join('..', '..', 'rho.yml'), named: false, task: undefined, arguments: [] });
    expect(await resolveRunTarget([], root)).toEqual({ file: 'rho.yml', named: false, task: undefined, arguments: [] });
  });

  it('reads a first word that is a task or an alias of the file found as the task, the rest as its arguments', async () => {
    expect(await resolveRunTarget(['build', 'x', 'mode=release'], deeper)).toMatchObject({ named: false, task: 'build', arguments: ['x', 'mode=release'] });
    expect(await resolveRunTarget(['b'], deeper)).toMatchObject({ named: false, task: 'b' });
  });

  it('takes a task over a file of the same name here; a path names the file', async () => {
    expect(await resolveRunTarget(['build'], deeper)).toMatchObject({ named: false, task: 'build' });
    expect(await resolveRunTarget(['./build', 'test'], deeper)).toEqual({ file: './build', named: true, task: 'test', arguments: [] });
  });

  it('reads a word that looks like a path, or is a file and no task, as the workflow file', async () => {
    expect(await resolveRunTarget(['other.yml', 'build', 'x'], root)).toEqual({ file: 'other.yml', named: true, task: 'build', arguments: ['x'] });
    expect(await resolveRunTarget(['missing.yaml'], deeper)).toEqual({ file: 'missing.yaml', named: true, task: undefined, arguments: [] });
    expect(await resolveRunTarget(['notes.txt'], root)).toMatchObject({ file: 'notes.txt', named: true });
  });

  it('reads NAME=VALUE right after the file, or first, as an input of the default task', async () => {
    expect(await resolveRunTarget(['other.yml', 'who=rho'], root)).toEqual({ file: 'other.yml', named: true, task: undefined, arguments: ['who=rho'] });
    expect(await resolveRunTarget(['who=rho', 'x'], deeper)).toMatchObject({ named: false, task: undefined, arguments: ['who=rho', 'x'] });
  });

  it('leaves a name the file found does not have to the loader, which lists the tasks', async () => {
    expect(await resolveRunTarget(['biuld'], deeper)).toMatchObject({ named: false, task: 'biuld' });
  });

  it('is a usage error when no file is named and none is found', async () => {
    const empty = await directories.make();
    expect(await usageMessage(resolveRunTarget([], empty))).toBe(`no rho.yml or rho.yaml is in ${empty} or a directory above it; name a workflow file, or write one with rho init`);
    expect(await usageMessage(resolveRunTarget(['build'], empty))).toBe(
      `"build" is not a file, and no rho.yml or rho.yaml is in ${empty} or a directory above it; name a workflow file, or write one with rho init`,
    );
  });

  it('takes files only for rho list and rho validate', async () => {
    expect(await resolveRunTarget(['build'], deeper, false)).toEqual({ file: 'build', named: true, task: undefined, arguments: [] });
    expect(await resolveRunTarget([], deeper, false)).toMatchObject({ file: path.join('..', '..', 'rho.yml'), named: false });
  });
});
