import { lstatSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync, type Stats } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Policy } from '../../src/host/policy.js';
import { ToolHost } from '../../src/host/tool-host.js';
import { Workspace } from '../../src/host/workspace.js';
import { fileTools } from '../tools/files/harness.js';

/**
 * Property: for random file operations on a random tree with random symlinks, under the
 * broadest policy (read, write and outside all allowed), no byte outside the permitted roots
 * (the workspace and one granted root) is ever read or written. Bytes only found outside are
 * a marker in file contents and a name only a listing of the outside directory could reveal.
 *
 * One run directory is reused: before each case it is reset to the skeleton below (cheaper
 * than creating and deleting a tree 2000 times), then the case adds its files and symlinks.
 * The harness itself uses synchronous file calls: thousands of cases stay fast that way,
 * while the tools under test keep their own asynchronous I/O.
 */
const marker = 'OUTSIDE-MARKER-7f3a';
const hiddenName = 'hidden-entry-9c1d';
const runs = 2000;

let base: string;
let outside: string;
let run: string;
let outsideSnapshot: string;
let host: ToolHost;

/** The tree every case starts from: `null` marks a directory. */
const skeleton: Readonly<Record<string, string | null>> = {
  ws: null,
  'ws/f0': 'alpha\n',
  'ws/d0': null,
  'ws/d0/f2': 'gamma\n',
  'ws/d0/d1': null,
  granted: null,
  'granted/g0': 'granted\n',
};

/** Every entry below `dir` with the facts any write would change (inode, size, times, mode). */
function snapshot(dir: string): string {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .sort()
    .map((relative) => {
      const info = lstatSync(path.join(dir, relative));
      return `${relative}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.mode}`;
    })
    .join('\n');
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-escape-')));
  outside = path.join(base, 'outside');
  mkdirSync(path.join(outside, 'sub'), { recursive: true });
  writeFileSync(path.join(outside, 'secret.txt'), `${marker}\n`);
  writeFileSync(path.join(outside, 'sub', 'inner.txt'), `a ${marker} e\n`);
  writeFileSync(path.join(outside, `${hiddenName}.txt`), `${marker}\n`);
  outsideSnapshot = snapshot(outside);
  run = path.join(base, 'run');
  mkdirSync(run);
  resetRun();
  host = new ToolHost({
    workspace: await Workspace.create(path.join(run, 'ws'), { grantedRoots: [path.join(run, 'granted')] }),
    policy: Policy.fromText({ allow: ['read', 'write', 'outside'] }),
    tools: fileTools(),
    environment: { env: {}, secretNames: [], processEnv: { mode: 'empty' } },
  });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** What a skeleton file looked like when it was last written: any write through a tool changes it. */
const pristine = new Map<string, string>();
const stamp = (info: Stats) => `${info.ino}:${info.size}:${info.mtimeMs}`;

/** Puts the run directory back to the skeleton: removes what a case added, restores what it changed. */
function resetRun(): void {
  for (const [relative, content] of Object.entries(skeleton)) {
    const absolute = path.join(run, relative);
    const info = (() => {
      try {
        return lstatSync(absolute);
      } catch {
        return undefined;
      }
    })();
    if (content === null && info?.isDirectory()) {
      // rm never follows a symlink, so removing an added link cannot reach outside.
      for (const name of readdirSync(absolute)) {
        if (!(`${relative}/${name}` in skeleton)) rmSync(path.join(absolute, name), { recursive: true, force: true });
      }
    } else if (content === null) {
      rmSync(absolute, { recursive: true, force: true });
      mkdirSync(absolute);
    } else if (!info?.isFile() || stamp(info) !== pristine.get(relative)) {
      rmSync(absolute, { recursive: true, force: true });
      writeFileSync(absolute, content);
      pristine.set(relative, stamp(lstatSync(absolute)));
    }
  }
}

const linkTargets = [
  'out-file',
  'out-dir',
  'out-sub',
  'out-missing',
  'out-missing-dir',
  'relative-out',
  '..',
  '../..',
  'self',
  'l0',
  'in-file',
  'in-dir',
  'granted',
  'granted-file',
  'run-dir',
  '/',
] as const;
type LinkTarget = (typeof linkTargets)[number];

const linkPlaces = ['ws', 'ws/d0', 'granted'] as const;
const linkNames = ['l0', 'l1', 'l2'] as const;

const prefixes = ['', './', 'd0/', 'd0/d1/', 'l0/', 'l1/', 'l2/', 'd0/l0/', 'd0/l1/', '../', 'd0/../', 'l0/../', '$WS/', '$GR/', '$GR/l0/', '$OUT/', '$RUN/', '/'];
const names = ['f0', 'f1', 'f2', 'g0', 'secret.txt', 'inner.txt', 'sub', 'new.txt', 'l0', 'l1', 'l2', 'd0', 'd1', '..', '.', ''];

const pathArb = fc.tuple(fc.constantFrom(...prefixes), fc.constantFrom(...names)).map(([prefix, name]) => prefix + name || '.');

const opArb = fc.oneof(
  fc.record({ tool: fc.constant('read_file'), path: pathArb, offset: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }) }),
  fc.record({
    tool: fc.constant('write_file'),
    path: pathArb,
    mode: fc.constantFrom('create', 'overwrite', 'append'),
    create_dirs: fc.boolean(),
  }),
  fc.record({ tool: fc.constant('edit_file'), path: pathArb, old: fc.constantFrom('a', 'e', marker) }),
  fc.record({ tool: fc.constant('list_files'), path: pathArb, glob: fc.option(fc.constant('**'), { nil: undefined }) }),
  fc.record({ tool: fc.constant('search_files'), path: pathArb, pattern: fc.constantFrom('.', 'MARKER', 'e') }),
);
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;

const scenarioArb = fc.record({
  links: fc.uniqueArray(fc.record({ place: fc.constantFrom(...linkPlaces), name: fc.constantFrom(...linkNames), target: fc.constantFrom(...linkTargets) }), {
    maxLength: 5,
    selector: (link) => `${link.place}/${link.name}`,
  }),
  extraFiles: fc.subarray(['ws/new.txt', 'ws/d0/d1/f1', 'granted/f1', 'ws/sub/inner.txt']),
  ops: fc.array(opArb, { minLength: 1, maxLength: 5 }),
});

function targetFor(target: LinkTarget, linkDir: string, name: string): string {
  const ws = path.join(run, 'ws');
  const granted = path.join(run, 'granted');
  const targets: Record<LinkTarget, string> = {
    'out-file': path.join(outside, 'secret.txt'),
    'out-dir': outside,
    'out-sub': path.join(outside, 'sub'),
    'out-missing': path.join(outside, 'missing.txt'),
    'out-missing-dir': path.join(outside, 'nodir', 'x'),
    'relative-out': path.relative(linkDir, outside),
    '..': '..',
    '../..': '../..',
    self: name,
    l0: 'l0',
    'in-file': path.join(ws, 'f0'),
    'in-dir': path.join(ws, 'd0'),
    granted,
    'granted-file': path.join(granted, 'g0'),
    'run-dir': run,
    '/': '/',
  };
  return targets[target];
}

function argsFor(op: Op): Record<string, unknown> {
  const requested = op.path.replace('$WS', path.join(run, 'ws')).replace('$GR', path.join(run, 'granted')).replace('$OUT', outside).replace('$RUN', run);
  switch (op.tool) {
    case 'read_file':
      return { path: requested, ...(op.offset !== undefined && { offset: op.offset }) };
    case 'write_file':
      return { path: requested, content: 'written\n', mode: op.mode, create_dirs: op.create_dirs };
    case 'edit_file':
      return { path: requested, edits: [{ old: op.old, new: 'E', all: true }] };
    case 'list_files':
      return { path: requested, ...(op.glob !== undefined && { glob: op.glob }) };
    case 'search_files':
      return { path: requested, pattern: op.pattern };
  }
}

it(`no random sequence of file operations reads or writes outside the permitted roots (${runs} runs)`, async () => {
  await fc.assert(
    fc.asyncProperty(scenarioArb, async (scenario) => {
      resetRun();
      for (const relative of scenario.extraFiles) {
        mkdirSync(path.dirname(path.join(run, relative)), { recursive: true });
        writeFileSync(path.join(run, relative), 'extra\n');
      }
      for (const link of scenario.links) {
        const linkDir = path.join(run, link.place);
        symlinkSync(targetFor(link.target, linkDir, link.name), path.join(linkDir, link.name));
      }
      for (const [index, op] of scenario.ops.entries()) {
        const result = await host.invoke({ id: `op-${index}`, tool: op.tool, args: argsFor(op) });
        const seen = JSON.stringify({ output: result.output, error: result.error && { kind: result.error.kind, message: result.error.message } });
        expect(seen).not.toContain(marker);
        expect(seen).not.toContain(hiddenName);
        expect(['success', 'failure']).toContain(result.status);
      }
      expect(snapshot(outside)).toBe(outsideSnapshot);
      expect(readdirSync(run).sort()).toEqual(['granted', 'ws']);
      expect(readdirSync(base).sort()).toEqual(['outside', 'run']);
    }),
    { numRuns: runs },
  );
  // A generous limit: the runs take seconds, but a loaded CI machine's file system can be slow.
}, 120_000);
