import { z } from 'zod';
import { displayPath } from '../host/capability.js';
import { shared } from '../host/resources.js';
import { defineBuiltinTool } from '../host/tool.js';
import { globArgument, pathArgument } from './files/arguments.js';
import { refuseEntry } from './files/entry-checks.js';
import { compileGlob } from './files/glob.js';
import { entryShower, TreeWalk, type WalkedEntry, type WalkedKind } from './files/walk.js';

const defaultMaxResults = 1000;

const listFilesArgs = () =>
  z.strictObject({
    path: pathArgument('Directory to list, relative to the workspace root (default ".")').optional(),
    glob: globArgument().optional().describe('Walk the tree and keep paths (relative to `path`) matching this glob, e.g. "**/*.ts"; without it only direct children are listed'),
    max_results: z.int().min(1).max(10_000).optional().describe(`Most entries to return (default ${defaultMaxResults})`),
    sizes: z
      .boolean()
      .optional()
      .describe("Also give each file's size in bytes (default false: names and types come from the directory listing alone, sizes take one more call per file)"),
  });

interface ListedEntry {
  path: string;
  type: WalkedKind;
  size?: number;
}

/** The first `maxResults` entries of the walk that `keep` keeps, described; truncated when there were more. */
async function collect(
  walk: TreeWalk,
  keep: (relative: string) => boolean,
  describe: (entry: WalkedEntry) => ListedEntry,
  maxResults: number,
): Promise<{ entries: ListedEntry[]; truncated: boolean }> {
  const entries: ListedEntry[] = [];
  for await (const batch of walk.batches()) {
    for (const entry of batch) {
      if (!keep(entry.relative)) continue;
      if (entries.length === maxResults) return { entries, truncated: true };
      entries.push(describe(entry));
    }
  }
  return { entries, truncated: walk.limitReached };
}

function shownLine(entry: ListedEntry): string {
  if (entry.type === 'directory') return `${entry.path}/`;
  return entry.size === undefined ? entry.path : `${entry.path} (${entry.size} bytes)`;
}

/** The step data the tool returns (`steps.<id>.data`). */
const listFilesData = () =>
  z.object({
    entries: z.array(z.object({ path: z.string(), type: z.string(), size: z.number().int().optional() })),
    truncated: z.boolean(),
  });

export const listFilesTool = defineBuiltinTool({
  name: 'list_files',
  description:
    'List a directory: its direct children, or with `glob` every matching path below it (bounded; symlinks are listed, never followed; .git and node_modules are not walked)',
  origin: 'built-in',
  data: listFilesData,
  classes: ['read'],
  executionPolicy: 'resource-aware',
  schema: listFilesArgs,
  async prepare(args, ctx) {
    const resolved = await ctx.workspace.resolveForRead(args.path ?? '.');
    const shown = displayPath(resolved);
    refuseEntry(resolved, shown, 'directory', 'use read_file for a file');
    const maxResults = args.max_results ?? defaultMaxResults;
    const matches = args.glob === undefined ? () => true : compileGlob(args.glob);
    return {
      requests: [{ class: 'read', path: resolved, target: 'tree' }],
      resources: [shared({ kind: 'tree', path: resolved.canonical })],
      summary: `list ${shown}`,
      async execute(ectx) {
        await ectx.workspace.revalidate(resolved);
        const sizes = args.sizes ?? false;
        const walk = new TreeWalk(resolved, { recursive: args.glob !== undefined, signal: ectx.signal, withheld: ectx.withheld, describeFiles: sizes });
        const show = entryShower(ectx.workspace, resolved.canonical);
        const describe = (entry: WalkedEntry): ListedEntry => {
          const listed: ListedEntry = { path: show(entry), type: entry.kind };
          if (sizes && entry.info?.isFile()) listed.size = entry.info.size;
          return listed;
        };
        const { entries, truncated } = await collect(walk, matches, describe, maxResults);
        const lines = entries.map(shownLine);
        if (truncated) lines.push(`(listing stopped after ${entries.length} entries; narrow it with path or glob, or raise max_results)`);
        return { text: lines.join('\n'), data: { entries, truncated } };
      },
    };
  },
});
