import { ToolError } from '../../src/host/errors.js';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import type { Figure, SuiteResult, Target } from '../lib/figures.js';
import { measureWithLoad, medianOf } from '../lib/hyperfine.js';
import { formatNumber, median } from '../lib/stats.js';
import { bareCheckedWalk } from '../lib/tree-floor.js';
import { needle, writeTree } from '../lib/tree.js';
import { Policy } from '../../src/host/policy.js';
import { ToolRegistry } from '../../src/host/registry.js';
import { ToolHost } from '../../src/host/tool-host.js';
import { Workspace } from '../../src/host/workspace.js';
import { listFilesTool } from '../../src/tools/list-files.js';
import { searchFilesTool } from '../../src/tools/search-files.js';

export const treeSizes = { full: 10_000, quick: 1_000 } as const;

const searchArgs = { pattern: needle, max_matches: 10_000 };
const listArgs = { glob: '**', max_results: 10_000 };
const listSizesArgs = { ...listArgs, sizes: true };
/** Rules that keep parts of the tree back, so a walk checks each entry against them. */
const withheldRules = { allow: ['read'], deny: ['read(dir1/**)', 'read(**/*.secret)'], ask: ['read(dir2/dir3/**)', 'read(**/.env)'] };

function invokeCommand(tool: string, root: string, args: object): string {
  return rhoCommand(`invoke ${tool} --allow read -w ${root} --sandbox off --args '${JSON.stringify(args)}'`);
}

/**
 * Median wall time (ms) of each task, run in turns — one run of every task per round, the order
 * reversed every other round, after one warm-up run each — so a change of load on a shared
 * machine falls on every task alike rather than on whichever ran during it.
 */
async function interleavedMedians(tasks: Record<string, () => unknown>, rounds: number): Promise<Record<string, number>> {
  const names = Object.keys(tasks);
  const times = new Map(names.map((name) => [name, [] as number[]]));
  for (const name of names) await tasks[name]!();
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const start = performance.now();
      await tasks[name]!();
      times.get(name)!.push(performance.now() - start);
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(times.get(name)!)]));
}

/** The tools called in this process, through a ToolHost as `rho invoke` builds one: their cost without Node's start-up. */
async function inProcessTimes(root: string, rounds: number): Promise<Record<string, number>> {
  const workspace = await Workspace.create(root);
  const host = (policy: Parameters<typeof Policy.fromText>[0]) =>
    new ToolHost({
      workspace,
      policy: Policy.fromText(policy),
      tools: new ToolRegistry([searchFilesTool, listFilesTool]),
      environment: { env: {}, secretNames: [], processEnv: { mode: 'empty' } },
    });
  const plain = host({ allow: ['read'] });
  const withheld = host(withheldRules);
  const call = (on: ToolHost, tool: string, args: object) => async () => {
    const result = await on.invoke({ id: tool, tool, args });
    if (result.status !== 'success') throw new ToolError('execution_failed', `${tool} failed: ${JSON.stringify(result.error)}`);
  };
  return interleavedMedians(
    {
      search: call(plain, 'search_files', searchArgs),
      list: call(plain, 'list_files', listArgs),
      'list with sizes': call(plain, 'list_files', listSizesArgs),
      'search, 4 deny/ask rules': call(withheld, 'search_files', searchArgs),
      'list, 4 deny/ask rules': call(withheld, 'list_files', listArgs),
      'bare Node loop, search calls': () => bareCheckedWalk(root, { read: true, needle }),
      'bare Node loop, list calls': () => bareCheckedWalk(root, { read: false, needle }),
    },
    rounds,
  );
}

/**
 * Tree tools: `search_files` of a regex and `list_files` of `**` over a seeded tree of 10,000
 * entries, through `rho invoke` as a user runs them, beside `grep -rn` and `find` of the same
 * tree in one hyperfine session; each command also on a tree of one matching file, so start-up
 * and the first use of each code path cancel out of the "what the tree adds" figures for rho
 * and its peers alike; and the tools called in process, beside the same floors and beside a bare
 * Node loop making the same system calls.
 */
export async function treesSuite(context: BenchContext): Promise<SuiteResult> {
  const entries = context.quick ? treeSizes.quick : treeSizes.full;
  const base = path.join(context.dir, 'trees');
  const tree = await writeTree(path.join(base, 'tree'), entries);
  const single = path.join(base, 'single');
  await mkdir(single, { recursive: true });
  await writeFile(path.join(single, 'file.ts'), `const ${needle} = 1;\n`);
  const names = {
    grep: `grep -rn (${entries} entries)`,
    grepSingle: 'grep -rn (one file)',
    find: `find (${entries} entries)`,
    findSingle: 'find (one file)',
    findStat: `find -printf '%p %y %s' (${entries} entries)`,
    findStatSingle: "find -printf '%p %y %s' (one file)",
    search: `rho invoke search_files (${entries} entries)`,
    searchSingle: 'rho invoke search_files (one file)',
    list: `rho invoke list_files (${entries} entries)`,
    listSingle: 'rho invoke list_files (one file)',
    listSizes: `rho invoke list_files sizes (${entries} entries)`,
    listSizesSingle: 'rho invoke list_files sizes (one file)',
  };
  const commands = [
    { name: names.grep, command: `grep -rn ${needle} ${tree.root}` },
    { name: names.grepSingle, command: `grep -rn ${needle} ${single}` },
    { name: names.find, command: `find ${tree.root}` },
    { name: names.findSingle, command: `find ${single}` },
    // find describing each entry (type and size, one lstat each), as list_files with sizes does.
    { name: names.findStat, command: `find ${tree.root} -printf '%p %y %s\\n'` },
    { name: names.findStatSingle, command: `find ${single} -printf '%p %y %s\\n'` },
    { name: names.search, command: invokeCommand('search_files', tree.root, searchArgs) },
    { name: names.searchSingle, command: invokeCommand('search_files', single, searchArgs) },
    { name: names.list, command: invokeCommand('list_files', tree.root, listArgs) },
    { name: names.listSingle, command: invokeCommand('list_files', single, listArgs) },
    { name: names.listSizes, command: invokeCommand('list_files', tree.root, listSizesArgs) },
    { name: names.listSizesSingle, command: invokeCommand('list_files', single, listSizesArgs) },
  ];
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 5, rounds: 2 }), output: 'pipe', cwd: base });
  const inProcess = await inProcessTimes(tree.root, context.quick ? 2 : 15);
  const median = (name: string) => medianOf(raw.measurements, name);
  const target: Target = { limit: 3, text: '≤ 3' };
  const ratio = (name: string, value: number, basis: string, withTarget?: Target): Figure => ({
    suite: 'trees',
    name,
    value,
    unit: '×',
    basis,
    ...(withTarget && { target: withTarget }),
  });
  const ms = formatNumber;
  /** Whole-process ratio of `tool` to `peer`, and the ratio of what the tree adds to each (its one-file run subtracted). */
  const wholeAndAdded = (label: string, tool: [string, string], peer: [string, string], peerLabel: string, withTarget?: Target): Figure[] => {
    const [big, small] = tool.map(median) as [number, number];
    const [peerBig, peerSmall] = peer.map(median) as [number, number];
    return [
      ratio(`${label} ÷ ${peerLabel}, whole process (${entries} entries)`, big / peerBig, `${ms(big)} ms / ${ms(peerBig)} ms`),
      ratio(
        `${label} ÷ ${peerLabel}, what the tree adds (each one's one-file run taken out)`,
        (big - small) / (peerBig - peerSmall),
        `(${ms(big)} − ${ms(small)}) ms / (${ms(peerBig)} − ${ms(peerSmall)}) ms`,
        withTarget,
      ),
    ];
  };
  const inProcessRatio = (label: string, task: string, floor: number, floorLabel: string, withTarget?: Target): Figure =>
    ratio(`${label} in process ÷ ${floorLabel}`, inProcess[task]! / floor, `${ms(inProcess[task]!)} ms / ${ms(floor)} ms`, withTarget);
  const figures: Figure[] = [
    ...wholeAndAdded('search_files', [names.search, names.searchSingle], [names.grep, names.grepSingle], 'grep -rn', target),
    inProcessRatio('search_files', 'search', median(names.grep), 'grep -rn', target),
    inProcessRatio('search_files', 'search', inProcess['bare Node loop, search calls']!, 'a bare Node loop making its system calls'),
    ratio(
      'a bare Node loop making the system calls of search_files ÷ grep -rn',
      inProcess['bare Node loop, search calls']! / median(names.grep),
      `${ms(inProcess['bare Node loop, search calls']!)} ms / ${ms(median(names.grep))} ms`,
    ),
    ...wholeAndAdded('list_files', [names.list, names.listSingle], [names.find, names.findSingle], 'find', target),
    inProcessRatio('list_files', 'list', median(names.find), 'find', target),
    inProcessRatio('list_files', 'list', inProcess['bare Node loop, list calls']!, 'a bare Node loop making its system calls'),
    ...wholeAndAdded('list_files sizes: true', [names.listSizes, names.listSizesSingle], [names.findStat, names.findStatSingle], "find -printf '%p %y %s'"),
    inProcessRatio('list_files sizes: true', 'list with sizes', median(names.findStat), "find -printf '%p %y %s'"),
    ratio(
      'search_files in process with 4 deny/ask rules ÷ with none',
      inProcess['search, 4 deny/ask rules']! / inProcess['search']!,
      `${ms(inProcess['search, 4 deny/ask rules']!)} ms / ${ms(inProcess['search']!)} ms`,
    ),
    ratio(
      'list_files in process with 4 deny/ask rules ÷ with none',
      inProcess['list, 4 deny/ask rules']! / inProcess['list']!,
      `${ms(inProcess['list, 4 deny/ask rules']!)} ms / ${ms(inProcess['list']!)} ms`,
    ),
  ];
  return {
    suite: 'trees',
    figures,
    raw: { tree: { ...tree, root: undefined }, ...raw, inProcessMedianMs: inProcess },
    notes: [
      `the tree: ${tree.files} files in ${tree.directories} directories, ${tree.matchingLines} matching lines; list_files returns at most 10,000 entries, as many as the tree has`,
      'in process: the tools called through a ToolHost in the bench process, one call of each in turn per round after one warm-up call each, beside the whole process of grep and find (about 1 ms of which is their start)',
    ],
  };
}
