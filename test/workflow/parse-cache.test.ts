import { readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/workflow/builtin-registry.js';
import { checkWorkflowFile } from '../../src/workflow/load.js';
import { parseCacheDir } from '../../src/cli/cache-places.js';
import type { ParseCachePlace } from '../../src/workflow/parse-cache.js';
import { newDigestKey, openSealed, sealText } from '../../src/host/keyed-digest.js';
import { WorkflowSource, type NodePath } from '../../src/workflow/source.js';
import { temporaryDirectories } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());
/** The cache place the test at hand reads through. */
let place: ParseCachePlace | undefined;
afterEach(() => {
  place = undefined;
});

const workflow = [
  'version: 1',
  'name: cached',
  'steps:',
  '  - id: first',
  '    tool: echo',
  '    with: { value: "one ${{ inputs.nope }}" }',
  '  - id: second',
  '    tool: echo',
  '    with:',
  '      value: two',
  '',
].join('\n');

/** The key entries are sealed with in these tests. */
const key = newDigestKey();

/** A workspace with the workflow and a cache directory of its own, in use. */
async function setup(text = workflow): Promise<{ file: string; cacheDir: string }> {
  const dir = await directories.make();
  const file = path.join(dir, 'flow.yml');
  await writeFile(file, text);
  const cacheDir = path.join(dir, 'cache');
  place = { dir: cacheDir, key: () => key };
  return { file, cacheDir };
}

/** What the one entry's seal is for (the parse of `file`). */
const purposeOf = (file: string) => `rho workflow parse ${file}`;

async function entries(cacheDir: string): Promise<string[]> {
  return readdir(cacheDir).catch(() => []);
}

async function read(file: string): Promise<WorkflowSource> {
  const { source, problems } = await WorkflowSource.read(file, place);
  expect(problems).toEqual([]);
  return source!;
}

/** Rewrites the one entry's data (what a read from the cache would hand out), sealed again with the key unless `forged`. */
async function editEntry(cacheDir: string, file: string, edit: (entry: { data: { name: string } } & Record<string, unknown>) => void, forged = false): Promise<void> {
  const [name] = await entries(cacheDir);
  const entryFile = path.join(cacheDir, name!);
  const sealed = await readFile(entryFile, 'utf8');
  const entry = JSON.parse(openSealed(key, purposeOf(file), sealed)!);
  edit(entry);
  const body = JSON.stringify(entry);
  await writeFile(entryFile, forged ? `${sealed.slice(0, sealed.indexOf('\n'))}\n${body}` : sealText(key, purposeOf(file), body));
}

const queries: { path: NodePath; key?: boolean; offset?: number }[] = [
  { path: ['steps', 0] },
  { path: ['steps', 1, 'with', 'value'] },
  { path: ['steps', 1, 'with'], key: true },
  { path: ['steps', 0, 'with', 'value'], offset: 7 },
  { path: ['steps', 5, 'missing'] },
  { path: ['nowhere'], key: true },
];

function answers(source: WorkflowSource) {
  return queries.map((query) => (query.offset === undefined ? source.position(query.path, { key: query.key ?? false }) : source.positionInString(query.path, query.offset)));
}

describe('the workflow parse cache', () => {
  it('keeps a checked file, private to the user, and gives back its data and positions for the same text', async () => {
    const { file, cacheDir } = await setup();
    const first = await checkWorkflowFile(file, builtinRegistry(), 'skip', { parseCache: place });
    expect(first.problems.map((problem) => `${problem.line}:${problem.col}`)).toEqual(['6:20']);
    const [entry, ...others] = await entries(cacheDir);
    expect(others).toEqual([]);
    expect((await stat(path.join(cacheDir, entry!))).mode & 0o777).toBe(0o600);
    expect((await stat(cacheDir)).mode & 0o777).toBe(0o700);
    // The same problem, at the same place, from the kept parse.
    const second = await checkWorkflowFile(file, builtinRegistry(), 'skip', { parseCache: place });
    expect(second.problems).toEqual(first.problems);
    expect(second.workflow).toBeUndefined();
    const fresh = WorkflowSource.parse(file, workflow).source!;
    const cached = await read(file);
    expect(cached.toData()).toEqual(fresh.toData());
    expect(answers(cached)).toEqual(answers(fresh));
  });

  it('keeps the files a run calls with uses:, and compiles their steps at the same lines from the cache', async () => {
    const { file, cacheDir } = await setup('version: 1\nname: main\nsteps:\n  - id: lib\n    uses: ./lib.yml\n');
    await writeFile(path.join(path.dirname(file), 'lib.yml'), workflow.replace('one ${{ inputs.nope }}', 'one'));
    const lines = async () => {
      const checked = await checkWorkflowFile(file, builtinRegistry(), 'skip', { workspace: { cwd: path.dirname(file) }, parseCache: place });
      expect(checked.problems).toEqual([]);
      return checked.workflow!.steps.map((step) => [step.id, step.line]);
    };
    const first = await lines();
    expect(first).toEqual([
      ['lib/first', 4],
      ['lib/second', 7],
      ['lib', 4],
    ]);
    expect((await entries(cacheDir)).sort()).toEqual([expect.stringMatching(/_flow\.yml\.json$/), expect.stringMatching(/_lib\.yml\.json$/)]);
    expect(await lines()).toEqual(first);
  });

  it('reads the kept data instead of parsing the text again', async () => {
    const { file, cacheDir } = await setup();
    (await read(file)).keep();
    await editEntry(cacheDir, file, (entry) => {
      entry.data.name = 'from the cache';
    });
    expect(((await read(file)).toData() as { name: string }).name).toBe('from the cache');
  });

  it('ignores an entry changed by anyone without the key (a forged policy), another key’s, or one moved from another file, and parses afresh', async () => {
    const { file, cacheDir } = await setup();
    const named = async (target = file) => ((await read(target)).toData() as { name: string }).name;
    (await read(file)).keep();
    await editEntry(cacheDir, file, (entry) => void (entry.data.name = 'forged'), true);
    expect(await named()).toBe('cached');
    (await read(file)).keep();
    await editEntry(cacheDir, file, (entry) => void (entry.data.name = 'sealed'));
    expect(await named()).toBe('sealed');
    place = { dir: cacheDir, key: () => newDigestKey() };
    expect(await named()).toBe('cached');
    // Sealed for another path: its seal does not hold for this one.
    place = { dir: cacheDir, key: () => key };
    const [name] = await entries(cacheDir);
    const moved = path.join(path.dirname(file), 'moved.yml');
    await writeFile(moved, workflow);
    await writeFile(path.join(cacheDir, name!.replace('flow.yml', 'moved.yml')), await readFile(path.join(cacheDir, name!), 'utf8'));
    expect(await named()).toBe('sealed');
    expect(await named(moved)).toBe('cached');
  });

  it('keeps a digest of the text, not the text: a token in a comment is not copied into the cache', async () => {
    const { file, cacheDir } = await setup(`# deploy token: ghp_abcdefghijklmnop\n${workflow}`);
    (await read(file)).keep();
    const [name] = await entries(cacheDir);
    const kept = await readFile(path.join(cacheDir, name!), 'utf8');
    expect(kept).not.toContain('ghp_abcdefghijklmnop');
    expect(kept).not.toContain('version: 1');
  });

  it('parses again when the text changed, and keeps the new parse in place of the old', async () => {
    const { file, cacheDir } = await setup();
    (await read(file)).keep();
    await writeFile(file, workflow.replace('name: cached', 'name: edited'));
    const edited = await read(file);
    expect((edited.toData() as { name: string }).name).toBe('edited');
    edited.keep();
    expect(await entries(cacheDir)).toHaveLength(1);
    expect(((await read(file)).toData() as { name: string }).name).toBe('edited');
  });

  it('ignores an entry that is not what rho writes, or whose data holds a __proto__ key', async () => {
    const { file, cacheDir } = await setup();
    (await read(file)).keep();
    const [name] = await entries(cacheDir);
    const entryFile = path.join(cacheDir, name!);
    const good = openSealed(key, purposeOf(file), await readFile(entryFile, 'utf8'))!;
    const seal = (body: string) => sealText(key, purposeOf(file), body);
    for (const bad of [
      'not json',
      '{}',
      good.replace('"format":"rho-workflow-parse 2', '"format":"rho-workflow-parse 0'),
      good.replace('"positions":{', '"positions":{"x":[0,1],'),
    ]) {
      await writeFile(entryFile, seal(bad));
      expect(((await read(file)).toData() as { name: string }).name, bad.slice(0, 40)).toBe('cached');
    }
    await writeFile(entryFile, seal(good.replace('"name":"cached"', '"name":"cached","__proto__":{"polluted":true}')));
    expect((await read(file)).toData()).not.toHaveProperty('__proto__.polluted');
    expect(((await read(file)).toData() as { name: string }).name).toBe('cached');
  });

  it('keeps nothing of a file whose parse had a problem, or data JSON cannot hold exactly', async () => {
    for (const text of [`${workflow}steps: []\n`, workflow.replace('value: two', 'value: !custom two'), workflow.replace('value: two', 'value: .nan')]) {
      const { file, cacheDir } = await setup(text);
      await checkWorkflowFile(file, builtinRegistry(), 'skip', { parseCache: place });
      expect(await entries(cacheDir), text).toEqual([]);
    }
  });

  it('keeps at most 64 files, dropping the least recently written', async () => {
    const { cacheDir } = await setup();
    const dir = path.dirname(cacheDir);
    for (let index = 0; index < 66; index++) {
      const file = path.join(dir, `flow-${index}.yml`);
      await writeFile(file, workflow);
      (await read(file)).keep();
      const [entry] = (await entries(cacheDir)).filter((name) => name.endsWith(`flow-${index}.yml.json`));
      await utimes(path.join(cacheDir, entry!), 1_000 + index, 1_000 + index);
    }
    const kept = await entries(cacheDir);
    expect(kept).toHaveLength(64);
    expect(kept.some((name) => name.endsWith('flow-0.yml.json') || name.endsWith('flow-1.yml.json'))).toBe(false);
  });

  it('lives under XDG_CACHE_HOME (else ~/.cache, also for a relative one) and is off with RHO_NO_WORKFLOW_CACHE=1', () => {
    expect(parseCacheDir({ XDG_CACHE_HOME: '/c' })).toBe(path.join('/c', 'rho', 'workflows'));
    expect(parseCacheDir({ XDG_CACHE_HOME: '/c', RHO_NO_WORKFLOW_CACHE: '1' })).toBeUndefined();
    // A relative XDG_CACHE_HOME is ignored, as the XDG specification says.
    expect(parseCacheDir({ XDG_CACHE_HOME: 'relative/cache' })).toBe(path.join(os.homedir(), '.cache', 'rho', 'workflows'));
  });
});
