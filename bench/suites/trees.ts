import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import type { Figure, SuiteResult, Target } from '../lib/figures.js';
import { measureWithLoad, medianOf } from '../lib/hyperfine.js';
import { formatNumber } from '../lib/stats.js';
import { medianTimes } from '../lib/tiny.js';
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
/** Rules that keep parts of the tree back, so a walk checks each entry against them. */
const withheldRules = { allow: ['read'], deny: ['read(dir1/**)', 'read(**/*.secret)'], ask: ['read(dir2/dir3/**)', 'read(**/.env)'] };

function invokeCommand(tool: string, root: string, args: object): string {
  return rhoCommand(`invoke ${tool} --allow read -w ${root} --sandbox off --args '${JSON.stringify(args)}'`);
}

/** The tools called in this process, through a ToolHost as `rho invoke` builds one: their cost without Node's start-up. */
async function inProcessTimes(root: string, iterations: number): Promise<Record<string, number>> {
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
    if (result.status !== 'success') throw new Error(`${tool} failed: ${JSON.stringify(result.error)}`);
  };
  return medianTimes(
    {
      search: call(plain, 'search_files', searchArgs),
      list: call(plain, 'list_files', listArgs),
      'search, 4 deny/ask rules': call(withheld, 'search_files', searchArgs),
      'list, 4 deny/ask rules': call(withheld, 'list_files', listArgs),
    },
    iterations,
  );
}

/**
 * Tree tools: `search_files` of a regex and `list_files` of `**` over a seeded tree of 10,000
 * entries, through `rho invoke` as a user runs them, beside `grep -rn` and `find` of the same
 * tree in one hyperfine session; the same on an empty tree, so start-up cancels out of the
 * marginal figures; and the tools called in process, beside the same floors.
 */
export async function treesSuite(context: BenchContext): Promise<SuiteResult> {
  const entries = context.quick ? treeSizes.quick : treeSizes.full;
  const base = path.join(context.dir, 'trees');
  const tree = await writeTree(path.join(base, 'tree'), entries);
  const empty = path.join(base, 'empty');
  await mkdir(empty, { recursive: true });
  const names = {
    grep: `grep -rn (${entries} entries)`,
    grepEmpty: 'grep -rn (empty tree)',
    find: `find (${entries} entries)`,
    findEmpty: 'find (empty tree)',
    findStat: `find -printf '%p %y %s' (${entries} entries)`,
    search: `rho invoke search_files (${entries} entries)`,
    searchEmpty: 'rho invoke search_files (empty tree)',
    list: `rho invoke list_files (${entries} entries)`,
    listEmpty: 'rho invoke list_files (empty tree)',
  };
  const commands = [
    { name: names.grep, command: `grep -rn ${needle} ${tree.root}` },
    { name: names.grepEmpty, command: `grep -rn ${needle} ${empty}` },
    { name: names.find, command: `find ${tree.root}` },
    { name: names.findEmpty, command: `find ${empty}` },
    // find describing each entry (type and size, one lstat each), as list_files must for its data.
    { name: names.findStat, command: `find ${tree.root} -printf '%p %y %s\\n'` },
    { name: names.search, command: invokeCommand('search_files', tree.root, searchArgs) },
    // grep exits 1 when nothing matches: an empty tree is searched by rho alone.
    { name: names.searchEmpty, command: invokeCommand('search_files', empty, searchArgs) },
    { name: names.list, command: invokeCommand('list_files', tree.root, listArgs) },
    { name: names.listEmpty, command: invokeCommand('list_files', empty, listArgs) },
  ].filter((command) => command.name !== names.grepEmpty);
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 5, rounds: 2 }), output: 'pipe', cwd: base });
  const inProcess = await inProcessTimes(tree.root, context.quick ? 2 : 10);
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
  const [grep, find] = [median(names.grep), median(names.find) - median(names.findEmpty)];
  const searchAdded = median(names.search) - median(names.searchEmpty);
  const listAdded = median(names.list) - median(names.listEmpty);
  const ms = formatNumber;
  const figures: Figure[] = [
    ratio(`search_files ÷ grep -rn, whole process (${entries} entries)`, median(names.search) / grep, `${ms(median(names.search))} ms / ${ms(grep)} ms`),
    ratio(
      'search_files ÷ grep -rn, what the tree adds (start-up taken out)',
      searchAdded / grep,
      `(${ms(median(names.search))} − ${ms(median(names.searchEmpty))}) ms / ${ms(grep)} ms`,
      target,
    ),
    ratio('search_files in process ÷ grep -rn', inProcess['search']! / grep, `${ms(inProcess['search']!)} ms / ${ms(grep)} ms`, target),
    ratio(`list_files ÷ find, whole process (${entries} entries)`, median(names.list) / median(names.find), `${ms(median(names.list))} ms / ${ms(median(names.find))} ms`),
    ratio(
      'list_files ÷ find, what the tree adds (start-up taken out)',
      listAdded / find,
      `(${ms(median(names.list))} − ${ms(median(names.listEmpty))}) ms / (${ms(median(names.find))} − ${ms(median(names.findEmpty))}) ms`,
      target,
    ),
    ratio('list_files in process ÷ find', inProcess['list']! / median(names.find), `${ms(inProcess['list']!)} ms / ${ms(median(names.find))} ms`),
    ratio(
      "list_files in process ÷ find -printf '%p %y %s' (an lstat per entry, as list_files makes)",
      inProcess['list']! / median(names.findStat),
      `${ms(inProcess['list']!)} ms / ${ms(median(names.findStat))} ms`,
    ),
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
    ],
  };
}
