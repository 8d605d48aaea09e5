import { z } from 'zod';
import { displayPath } from '../host/capability.js';
import { ToolError } from '../host/errors.js';
import { shared } from '../host/resources.js';
import { defineTool, type ExecuteContext } from '../host/tool.js';
import type { FileIdentity, ResolvedPath } from '../host/workspace.js';
import { globArgument, mebibyte, pathArgument } from './files/arguments.js';
import { looksBinary } from './files/content.js';
import { refuseEntry } from './files/entry-checks.js';
import { compileGlob } from './files/glob.js';
import { compilePattern, LineMatcher, type LineMatch } from './files/line-matcher.js';
import { openCheckedFile, readWhole } from './files/open-file.js';
import { fileBehindLink, TreeWalk } from './files/walk.js';

const maxPatternLength = 1000;
const defaultMaxMatches = 500;
/** Files larger than this are skipped: they are rarely source and would dominate the search. */
const searchableBytes = 8 * mebibyte;
const patternTimeoutMs = 1000;

function patternProblem(source: string, caseInsensitive: boolean | undefined): string | undefined {
  try {
    compilePattern(source, caseInsensitive ?? false);
    return undefined;
  } catch (error) {
    return `not a valid regular expression: ${(error as Error).message}`;
  }
}

const searchFilesArgs = z
  .strictObject({
    pattern: z.string().min(1).max(maxPatternLength).describe('JavaScript regular expression, tested against each line'),
    path: pathArgument('File or directory to search, relative to the workspace root (default ".")').optional(),
    glob: globArgument.optional().describe('Only search files whose path relative to `path` matches, e.g. "**/*.md"'),
    max_matches: z.int().min(1).max(10_000).optional().describe(`Most matching lines to return (default ${defaultMaxMatches})`),
    case_insensitive: z.boolean().optional().describe('Ignore case (default false)'),
  })
  .superRefine((args, ctx) => {
    const problem = args.pattern.length <= maxPatternLength ? patternProblem(args.pattern, args.case_insensitive) : undefined;
    if (problem) ctx.addIssue({ code: 'custom', path: ['pattern'], message: problem });
  });

export interface SearchMatch extends LineMatch {
  path: string;
}

/** One file the search will read, with the identity it had when it was found or resolved. */
interface Candidate {
  absolute: string;
  shown: string;
  identity: FileIdentity | undefined;
  /** Named by the call itself: too large is then an error rather than a silent skip. */
  named: boolean;
}

async function* candidatesIn(resolved: ResolvedPath, ectx: ExecuteContext, glob: string | undefined, walk: TreeWalk): AsyncGenerator<Candidate> {
  const matches = glob === undefined ? () => true : compileGlob(glob);
  for await (const entry of walk.entries()) {
    if (!matches(entry.relative)) continue;
    const shown = ectx.workspace.showPath(entry.absolute);
    if (entry.kind === 'file') {
      // A file with several names may also be one a rule keeps back under another name.
      if (entry.info.nlink > 1 && ectx.withheld(entry.absolute, entry.info.nlink)) continue;
      yield { absolute: entry.absolute, shown, identity: { dev: entry.info.dev, ino: entry.info.ino }, named: false };
    } else if (entry.kind === 'symlink') {
      // Only links to files inside the searched tree are followed: the read was authorized for this tree alone.
      const target = await fileBehindLink(entry.absolute, resolved.canonical);
      if (target && !ectx.withheld(target.absolute, target.info.nlink)) yield { absolute: target.absolute, shown, identity: { dev: target.info.dev, ino: target.info.ino }, named: false };
    }
  }
}

async function searchOne(candidate: Candidate, matcher: LineMatcher, limit: number): Promise<SearchMatch[]> {
  const opened = await openCheckedFile(candidate.absolute, candidate.identity, candidate.shown).catch((error: unknown) => {
    // A file that vanished since it was listed is simply not searched; anything else is reported.
    if (error instanceof ToolError && error.kind === 'not_found') return undefined;
    throw error;
  });
  if (!opened) return [];
  try {
    if (opened.info.size > searchableBytes && !candidate.named) return [];
    const bytes = await readWhole(opened, searchableBytes, candidate.shown);
    if (looksBinary(bytes)) return [];
    return matcher.matches(bytes.toString('utf8'), limit, candidate.shown).map((match) => ({ path: candidate.shown, ...match }));
  } finally {
    await opened.handle.close();
  }
}

export const searchFilesTool = defineTool({
  name: 'search_files',
  description:
    'Search files for lines matching a regular expression (bounded; skips .git, node_modules, binary and very large files; follows no symlink out of the searched tree)',
  origin: 'built-in',
  classes: ['read'],
  executionPolicy: 'resource-aware',
  schema: searchFilesArgs,
  async prepare(args, ctx) {
    const resolved = await ctx.workspace.resolveForRead(args.path ?? '.');
    const shown = displayPath(resolved);
    if (resolved.entry === 'other') refuseEntry(resolved, shown, 'file', 'search a file or a directory');
    const tree = resolved.entry === 'directory';
    const maxMatches = args.max_matches ?? defaultMaxMatches;
    const masker = ctx.host.masker;
    const matcher = new LineMatcher(compilePattern(args.pattern, args.case_insensitive ?? false), patternTimeoutMs, (text) => masker?.mask(text) ?? text);
    return {
      requests: [{ class: 'read', path: resolved, target: tree ? 'tree' : 'file' }],
      resources: [shared({ kind: tree ? 'tree' : 'path', path: resolved.canonical })],
      summary: `search ${shown}`,
      async execute(ectx) {
        await ectx.workspace.revalidate(resolved);
        const matches: SearchMatch[] = [];
        let truncated = false;
        const walk = tree ? new TreeWalk(resolved, { recursive: true, signal: ectx.signal, withheld: ectx.withheld }) : undefined;
        const candidates: AsyncIterable<Candidate> | Iterable<Candidate> = walk
          ? candidatesIn(resolved, ectx, args.glob, walk)
          : [{ absolute: resolved.canonical, shown, identity: resolved.identity, named: true }];
        for await (const candidate of candidates) {
          ectx.signal.throwIfAborted();
          const found = await searchOne(candidate, matcher, maxMatches - matches.length + 1);
          matches.push(...found);
          if (matches.length > maxMatches) {
            matches.length = maxMatches;
            truncated = true;
            break;
          }
        }
        truncated ||= walk?.limitReached ?? false;
        const lines = matches.map((match) => `${match.path}:${match.line}:${match.text}`);
        if (truncated) lines.push(`(search stopped after ${matches.length} matches; narrow it with path, glob or pattern, or raise max_matches)`);
        return { text: lines.join('\n'), data: { matches, truncated } };
      },
    };
  },
});
