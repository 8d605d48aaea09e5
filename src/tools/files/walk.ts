import type { Stats } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { ToolError } from '../../host/errors.js';
import { isWithin, type FileIdentity, type ResolvedPath, type Workspace } from '../../host/workspace.js';
import { CheckedDirectory } from './checked-directory.js';

export type WalkedKind = 'file' | 'directory' | 'symlink' | 'other';

export interface WalkedEntry {
  absolute: string;
  /** Path relative to the walk's root, with '/' separators. */
  relative: string;
  kind: WalkedKind;
  /** lstat of the entry: a symlink is described, never followed. */
  info: Stats;
  /** The entry's name in `directory`. */
  name: string;
  /** The checked, open directory that holds the entry, for I/O relative to it: open until the walk is asked for its next entry. */
  directory: CheckedDirectory;
}

export interface WalkOptions {
  /** Descend into subdirectories (never into the ones in `unwalkedDirectories`). */
  recursive: boolean;
  signal: AbortSignal;
  /** Paths a deny or ask rule keeps back: neither listed nor descended into. */
  withheld(absolute: string): boolean;
}

/** Directories that are listed but never descended into: searches and listings skip their contents. */
const unwalkedDirectories: ReadonlySet<string> = new Set(['.git', 'node_modules']);

const maxDepth = 128;
/** Entries a walk looks at before it stops and reports `limitReached`, however few a tool keeps. */
const maxVisited = 200_000;
const entriesBetweenTurns = 1024;

function kindOf(info: Stats): WalkedKind {
  if (info.isSymbolicLink()) return 'symlink';
  if (info.isFile()) return 'file';
  if (info.isDirectory()) return 'directory';
  return 'other';
}

/** One directory read: its checked descriptor, open while the walk is inside it, and its sorted entries. */
interface Listing {
  directory: CheckedDirectory;
  children: { name: string; info: Stats }[];
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

  entries(): AsyncGenerator<WalkedEntry> {
    if (this.root.entry !== 'directory' || !this.root.identity) {
      throw new ToolError('internal', `TreeWalk needs an existing directory, got ${this.root.canonical}`);
    }
    return this.walk(this.root.canonical, this.root.identity);
  }

  private async *walk(root: string, identity: FileIdentity): AsyncGenerator<WalkedEntry> {
    const stack: Frame[] = [];
    try {
      const listing = await this.readChecked(root, identity, true);
      if (listing) stack.push({ listing, next: 0, absolute: root, relative: '', depth: 0 });
      while (stack.length > 0) {
        const frame = stack[stack.length - 1]!;
        const child = frame.listing.children[frame.next];
        if (!child) {
          stack.pop();
          await frame.listing.directory.close();
          continue;
        }
        frame.next += 1;
        this.options.signal.throwIfAborted();
        if (this.visited >= maxVisited) {
          this.limitReached = true;
          return;
        }
        this.visited += 1;
        // The walk's calls are synchronous: timers, signals and other steps' output get a turn now and then.
        if (this.visited % entriesBetweenTurns === 0) await setImmediatePromise();
        const { name, info } = child;
        const absolute = path.join(frame.absolute, name);
        if (this.options.withheld(absolute)) continue;
        const relative = frame.relative ? `${frame.relative}/${name}` : name;
        const kind = kindOf(info);
        yield { absolute, relative, kind, info, name, directory: frame.listing.directory };
        if (kind === 'directory' && this.options.recursive && !unwalkedDirectories.has(name) && frame.depth < maxDepth) {
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
      const names = (await directory.names().catch((cause: unknown) => {
        if (isRoot) throw new ToolError('execution_failed', `cannot read directory ${absolute}: ${(cause as Error).message}`, { cause });
        return [];
      })).sort();
      // Entries past the walk's budget are never visited, so they are not described either.
      const children: Listing['children'] = [];
      for (const name of names.slice(0, maxVisited - this.visited + 1)) {
        const info = directory.describe(name);
        if (info) children.push({ name, info });
      }
      return { directory, children };
    } catch (error) {
      await directory.close();
      throw error;
    }
  }
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
