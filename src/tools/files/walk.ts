import type { Dirent, Stats } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { ToolError } from '../../host/errors.js';
import { isWithin, type FileIdentity, type ResolvedPath, type Workspace } from '../../host/workspace.js';
import { CheckedDirectory } from './checked-directory.js';

export type WalkedKind = 'file' | 'directory' | 'symlink' | 'other';

export interface WalkedEntry {
  absolute: string;
  /** Path relative to the walk's root, with '/' separators. */
  relative: string;
  /** What the entry was when its directory was listed (from the lstat when there is one). */
  kind: WalkedKind;
  /**
   * lstat of the entry, taken when its directory was listed: a symlink is described, never
   * followed. Present for directories (their identity is checked when the walk enters them)
   * and, with `describeFiles`, for regular files; absent for the rest.
   */
  info: Stats | undefined;
  /** The entry's name in `directory`. */
  name: string;
  /** The checked, open directory that holds the entry, for I/O relative to it: open until the walk is asked for its next entry (its next run, through `batches`). */
  directory: CheckedDirectory;
}

export interface WalkOptions {
  /** Descend into subdirectories (never into the ones in `unwalkedDirectories`). */
  recursive: boolean;
  signal: AbortSignal;
  /** Paths a deny or ask rule keeps back: neither listed nor descended into. */
  withheld(absolute: string): boolean;
  /**
   * Describe each regular file (one lstat each) when its directory is listed, for a caller that
   * needs its size, links or identity; the listing itself gives every entry's kind.
   */
  describeFiles?: boolean;
}

/** Directories that are listed but never descended into: searches and listings skip their contents. */
const unwalkedDirectories: ReadonlySet<string> = new Set(['.git', 'node_modules']);

const maxDepth = 128;
/** Entries a walk looks at before it stops and reports `limitReached`, however few a tool keeps. */
const maxVisited = 200_000;
const entriesBetweenTurns = 1024;

/** The kind of a listed entry or of an lstat: both answer the same questions. */
function kindOf(entry: Dirent | Stats): WalkedKind {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  return 'other';
}

/** `path.join` of a canonical directory and one entry name, without its normalizing pass. */
function childPath(directory: string, name: string): string {
  return directory.endsWith('/') ? `${directory}${name}` : `${directory}/${name}`;
}

function byName(left: Dirent, right: Dirent): number {
  return left.name < right.name ? -1 : left.name > right.name ? 1 : 0;
}

/** One directory read: its checked descriptor, open while the walk is inside it, and its sorted entries. */
interface Listing {
  directory: CheckedDirectory;
  children: { name: string; kind: WalkedKind; info: Stats | undefined }[];
}

interface Frame {
  listing: Listing;
  next: number;
  absolute: string;
  relative: string;
  depth: number;
}

/**
 * A bounded, sorted, depth-first walk of a canonical directory tree that never follows a
 * symlink: every directory it reads is checked, after opening, to still be the real directory
 * it found (no symlink swapped in), and its entries are read and described through that open
 * directory, so a walk cannot wander out of the tree it was given.
 */
export class TreeWalk {
  limitReached = false;
  private visited = 0;

  /** `root` is an existing directory the caller has just revalidated. */
  constructor(
    private readonly root: ResolvedPath,
    private readonly options: WalkOptions,
  ) {}

  /**
   * The walk's entries in order, in runs that share one open directory (a run ends where the
   * walk enters a subdirectory, leaves a directory, or gives the event loop a turn): a caller
   * goes through each run synchronously, and the walk resumes once per run instead of once per
   * entry. The directory of a run's entries is open until the next run is asked for.
   */
  batches(): AsyncGenerator<readonly WalkedEntry[]> {
    if (this.root.entry !== 'directory' || !this.root.identity) {
      throw new ToolError('internal', `TreeWalk needs an existing directory, got ${this.root.canonical}`);
    }
    return this.walk(this.root.canonical, this.root.identity);
  }

  /** The walk's entries one at a time; each entry's directory is open until the next is asked for. */
  entries(): AsyncGenerator<WalkedEntry> {
    return oneByOne(this.batches());
  }

  private async *walk(root: string, identity: FileIdentity): AsyncGenerator<readonly WalkedEntry[]> {
    const stack: Frame[] = [];
    let batch: WalkedEntry[] = [];
    try {
      const listing = await this.readChecked(root, identity, true);
      if (listing) stack.push({ listing, next: 0, absolute: root, relative: '', depth: 0 });
      while (stack.length > 0) {
        const frame = stack[stack.length - 1]!;
        const child = frame.listing.children[frame.next];
        if (!child) {
          if (batch.length > 0) yield batch;
          batch = [];
          stack.pop();
          await frame.listing.directory.close();
          continue;
        }
        frame.next += 1;
        this.options.signal.throwIfAborted();
        if (this.visited >= maxVisited) {
          if (batch.length > 0) yield batch;
          this.limitReached = true;
          return;
        }
        this.visited += 1;
        // The walk's calls are synchronous: timers, signals and other steps' output get a turn now and then.
        if (this.visited % entriesBetweenTurns === 0) {
          if (batch.length > 0) yield batch;
          batch = [];
          await setImmediatePromise();
        }
        const { name, kind, info } = child;
        const absolute = childPath(frame.absolute, name);
        if (this.options.withheld(absolute)) continue;
        const relative = frame.relative ? `${frame.relative}/${name}` : name;
        batch.push({ absolute, relative, kind, info, name, directory: frame.listing.directory });
        if (kind === 'directory' && info && this.options.recursive && !unwalkedDirectories.has(name) && frame.depth < maxDepth) {
          yield batch;
          batch = [];
          const inner = await this.readChecked(absolute, { dev: info.dev, ino: info.ino }, false);
          if (inner) stack.push({ listing: inner, next: 0, absolute, relative, depth: frame.depth + 1 });
        }
      }
    } finally {
      for (const frame of stack) await frame.listing.directory.close();
    }
  }

  /**
   * Reads a directory's entries (sorted by name) through the directory opened and proved to be
   * the real directory that was found: a symlink swapped into its path cannot make the walk read
   * another directory's names. The directory stays open for I/O relative to it.
   */
  private async readChecked(absolute: string, identity: FileIdentity, isRoot: boolean): Promise<Listing | undefined> {
    let directory: CheckedDirectory;
    try {
      directory = await CheckedDirectory.open(absolute, absolute, identity);
    } catch (cause) {
      if (cause instanceof ToolError && cause.kind === 'path_refused') {
        throw new ToolError('path_refused', `directory ${absolute} changed while it was being read (a symlink or another directory was swapped in); nothing was returned`, {
          cause,
          details: { path: absolute, reason: 'changed during walk' },
        });
      }
      // An unreadable or vanished subdirectory is left out; the tree's own root must be readable.
      if (isRoot) throw new ToolError('execution_failed', `cannot read directory ${absolute}: ${(cause as Error).message}`, { cause });
      return undefined;
    }
    try {
      const listed = (
        await directory.list().catch((cause: unknown) => {
          if (isRoot) throw new ToolError('execution_failed', `cannot read directory ${absolute}: ${(cause as Error).message}`, { cause });
          return [];
        })
      ).sort(byName);
      // Entries past the walk's budget are never visited, so they are not described either.
      const children: Listing['children'] = [];
      for (const entry of listed.slice(0, maxVisited - this.visited + 1)) {
        const listedKind = kindOf(entry);
        if (listedKind !== 'directory' && !(listedKind === 'file' && this.options.describeFiles)) {
          children.push({ name: entry.name, kind: listedKind, info: undefined });
          continue;
        }
        // Described now, so a later swap shows as a changed identity; an entry gone since the listing is left out.
        const info = directory.describe(entry.name);
        if (info) children.push({ name: entry.name, kind: kindOf(info), info });
      }
      return { directory, children };
    } catch (error) {
      await directory.close();
      throw error;
    }
  }
}

async function* oneByOne<T>(batches: AsyncIterable<readonly T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch;
}

/** The lstat of a regular file a walk with `describeFiles` met. */
export function describedFile(entry: WalkedEntry): Stats {
  if (entry.kind !== 'file' || !entry.info) throw new ToolError('internal', `${entry.absolute} was walked without describing files`);
  return entry.info;
}

/**
 * The regular file a symlink met during a walk points at, when it lies inside the walked tree;
 * undefined for links that dangle, loop, point at directories or leave the tree.
 */
export async function fileBehindLink(link: string, treeRoot: string): Promise<{ absolute: string; info: Stats } | undefined> {
  const target = await realpath(link).catch(() => undefined);
  if (target === undefined || !isWithin(treeRoot, target)) return undefined;
  const info = await lstat(target).catch(() => undefined);
  return info?.isFile() ? { absolute: target, info } : undefined;
}

/**
 * How results show the entries of a walk of `root`: as `workspace.showPath` would, without
 * recomputing a relative path for each entry when the root lies inside the workspace.
 */
export function entryShower(workspace: Workspace, root: string): (entry: WalkedEntry) => string {
  if (!isWithin(workspace.root, root)) return (entry) => workspace.showPath(entry.absolute);
  const shownRoot = workspace.showPath(root);
  return shownRoot === '.' ? (entry) => entry.relative : (entry) => `${shownRoot}/${entry.relative}`;
}
