import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { z } from 'zod';
import { displayPath } from '../host/capability.js';
import { ToolError } from '../host/errors.js';
import { shared } from '../host/resources.js';
import { defineBuiltinTool, type ExecuteContext } from '../host/tool.js';
import type { FileIdentity, ResolvedPath } from '../host/workspace.js';
import { globArgument, mebibyte, pathArgument } from './files/arguments.js';
import { looksBinary } from './files/content.js';
import { refuseEntry } from './files/entry-checks.js';
import { compileGlob } from './files/glob.js';
import type { CheckedDirectory } from './files/checked-directory.js';
import { compilePattern, LineMatcher, type LineMatch, type MatchInput } from './files/line-matcher.js';
import { openCheckedFile, ReadScratch, readFileIn, readWhole } from './files/open-file.js';
import { describedFile, entryShower, fileBehindLink, TreeWalk } from './files/walk.js';

const maxPatternLength = 1000;
const defaultMaxMatches = 500;
/** Files larger than this are skipped: they are rarely source and would dominate the search. */
const searchableBytes = 8 * mebibyte;
const patternTimeoutMs = 1000;
/** Bytes read synchronously between turns of the event loop. */
const bytesBetweenTurns = 4 * mebibyte;
/** Decoded files tested in one run of the matcher (each run starts a watchdog). */
const batchedBytes = mebibyte;
const batchedFiles = 256;

function patternProblem(source: string, caseInsensitive: boolean | undefined): string | undefined {
  try {
    compilePattern(source, caseInsensitive ?? false);
    return undefined;
  } catch (error) {
    return `not a valid regular expression: ${(error as Error).message}`;
  }
}

const searchFilesArgs = () =>
  z
    .strictObject({
      pattern: z.string().min(1).max(maxPatternLength).describe('JavaScript regular expression, tested against each line'),
      path: pathArgument('File or directory to search, relative to the workspace root (default ".")').optional(),
      glob: globArgument().optional().describe('Only search files whose path relative to `path` matches, e.g. "**/*.md"'),
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
  /** The checked directory the walk found it in, opened relative to it (absent: opened through its checked parent). */
  in?: { directory: CheckedDirectory; name: string };
}

/** The files of each run of the walk worth reading, in order: a run shares one open directory. */
async function* candidatesIn(resolved: ResolvedPath, ectx: ExecuteContext, glob: string | undefined, walk: TreeWalk): AsyncGenerator<readonly Candidate[]> {
  const matches = glob === undefined ? () => true : compileGlob(glob);
  const show = entryShower(ectx.workspace, resolved.canonical);
  for await (const batch of walk.batches()) {
    const candidates: Candidate[] = [];
    for (const entry of batch) {
      if (!matches(entry.relative)) continue;
      if (entry.kind === 'file') {
        const info = describedFile(entry);
        // A file with several names may also be one a rule keeps back under another name.
        if (info.nlink > 1 && ectx.withheld(entry.absolute, info.nlink)) continue;
        const identity = { dev: info.dev, ino: info.ino };
        candidates.push({ absolute: entry.absolute, shown: show(entry), identity, named: false, in: { directory: entry.directory, name: entry.name } });
      } else if (entry.kind === 'symlink') {
        // Only links to files inside the searched tree are followed: the read was authorized for this tree alone.
        const target = await fileBehindLink(entry.absolute, resolved.canonical);
        if (target && !ectx.withheld(target.absolute, target.info.nlink)) {
          candidates.push({ absolute: target.absolute, shown: show(entry), identity: { dev: target.info.dev, ino: target.info.ino }, named: false });
        }
      }
    }
    if (candidates.length > 0) yield candidates;
  }
}

/** A file that vanished since it was listed is simply not searched; anything else is reported. */
function vanished(error: unknown): undefined {
  if (error instanceof ToolError && error.kind === 'not_found') return undefined;
  throw error;
}

/** The bytes of a file the walk found, read into `scratch` (valid until its next use); undefined for one that vanished or is too large. */
function readWalked(found: { directory: CheckedDirectory; name: string }, candidate: Candidate, scratch: ReadScratch): Buffer | undefined {
  try {
    return readFileIn(found.directory, found.name, candidate.identity, candidate.shown, searchableBytes, scratch);
  } catch (error) {
    return vanished(error);
  }
}

/** Reads a file through its checked parent: the one file a call names, or a file a link in the tree points at. */
async function readNamed(candidate: Candidate): Promise<Buffer | undefined> {
  try {
    const opened = await openCheckedFile(candidate.absolute, candidate.identity, candidate.shown);
    try {
      if (opened.info.size > searchableBytes && !candidate.named) return undefined;
      return await readWhole(opened, searchableBytes, candidate.shown);
    } finally {
      await opened.handle.close();
    }
  } catch (error) {
    return vanished(error);
  }
}

async function* one(candidate: Candidate): AsyncGenerator<readonly Candidate[]> {
  yield [candidate];
}

/** The matches of one search so far, and the decoded files waiting to be tested in one run of the matcher. */
class MatchBatches {
  readonly matches: SearchMatch[] = [];
  /** Bytes read since the event loop last had a turn. */
  readSinceTurn = 0;
  private batch: MatchInput[] = [];
  private batchBytes = 0;

  constructor(
    private readonly matcher: LineMatcher,
    private readonly maxMatches: number,
  ) {}

  /** Takes the bytes of one file (undefined: not searched); true once more than `maxMatches` lines matched. */
  add(bytes: Buffer | undefined, shown: string): boolean {
    if (!bytes) return false;
    this.readSinceTurn += bytes.length;
    if (looksBinary(bytes) || !this.matcher.mayMatch(bytes)) return false;
    this.batch.push({ text: bytes.toString('utf8'), shown });
    this.batchBytes += bytes.length;
    return (this.batchBytes >= batchedBytes || this.batch.length >= batchedFiles) && this.flush();
  }

  /** Tests the waiting files; true once more than `maxMatches` lines matched. */
  flush(): boolean {
    const batch = this.batch;
    const found = this.matcher.matchAll(batch, this.maxMatches - this.matches.length + 1);
    found.forEach((lines, index) => {
      for (const line of lines) this.matches.push({ path: batch[index]!.shown, ...line });
    });
    this.batch = [];
    this.batchBytes = 0;
    return this.matches.length > this.maxMatches;
  }
}

/**
 * Searches the candidates in order, testing decoded files in batches. An error (a swap, an
 * unreadable file) counts only if the search had not already stopped at its limit before
 * reaching it, as if each file were tested as soon as it was read.
 */
async function searchAll(
  candidates: AsyncIterable<readonly Candidate[]>,
  matcher: LineMatcher,
  maxMatches: number,
  signal: AbortSignal,
): Promise<{ matches: SearchMatch[]; full: boolean }> {
  const batches = new MatchBatches(matcher, maxMatches);
  const scratch = new ReadScratch(searchableBytes);
  try {
    for await (const run of candidates) {
      for (const candidate of run) {
        signal.throwIfAborted();
        const bytes = candidate.in ? readWalked(candidate.in, candidate, scratch) : await readNamed(candidate);
        if (batches.add(bytes, candidate.shown)) return { matches: batches.matches, full: true };
        // Reads are synchronous: the event loop gets a turn every so many bytes.
        if (batches.readSinceTurn >= bytesBetweenTurns) {
          batches.readSinceTurn = 0;
          await setImmediatePromise();
        }
      }
    }
  } catch (error) {
    if (!signal.aborted && batches.flush()) return { matches: batches.matches, full: true };
    throw error;
  }
  return { matches: batches.matches, full: batches.flush() };
}

/** The step data the tool returns (`steps.<id>.data`). */
const searchFilesData = () =>
  z.object({
    matches: z.array(z.object({ path: z.string(), line: z.number().int(), text: z.string() })),
    truncated: z.boolean(),
  });

export const searchFilesTool = defineBuiltinTool({
  name: 'search_files',
  description: 'Search files for lines matching a regular expression (bounded; skips .git, node_modules, binary and very large files; follows no symlink out of the searched tree)',
  origin: 'built-in',
  data: searchFilesData,
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
        // Files are described when listed: a file replaced before it is read shows as a changed identity.
        const walk = tree ? new TreeWalk(resolved, { recursive: true, signal: ectx.signal, withheld: ectx.withheld, describeFiles: true }) : undefined;
        const candidates = walk ? candidatesIn(resolved, ectx, args.glob, walk) : one({ absolute: resolved.canonical, shown, identity: resolved.identity, named: true });
        const { matches, full } = await searchAll(candidates, matcher, maxMatches, ectx.signal);
        if (full) matches.length = maxMatches;
        const truncated = full || (walk?.limitReached ?? false);
        const lines = matches.map((match) => `${match.path}:${match.line}:${match.text}`);
        if (truncated) lines.push(`(search stopped after ${matches.length} matches; narrow it with path, glob or pattern, or raise max_matches)`);
        return { text: lines.join('\n'), data: { matches, truncated } };
      },
    };
  },
});
