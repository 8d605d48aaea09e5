import type { Stats } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../host/errors.js';
import { isWithin, type FileIdentity, type ResolvedPath } from '../../host/workspace.js';
import { CheckedDirectory } from './checked-directory.js';

export type WalkedKind = 'file' | 'directory' | 'symlink' | 'other';

export interface WalkedEntry {
  absolute: string;
  /** Path relative to the walk's root, with '/' separators. */
  relative: string;
  kind: WalkedKind;
  /** lstat of the entry: a symlink is described, never followed. */
  info: Stats;
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

function kindOf(info: Stats): WalkedKind {
  if (info.isSymbolicLink()) return 'symlink';
  if (info.isFile()) return 'file';
  if (info.isDirectory()) return 'directory';
  return 'other';
}

/**
 * A bounded, sorted, depth-first walk of a canonical directory tree that never follows a
 * symlink: every directory it reads is checked, after reading, to still be the real directory
 * it found (no symlink swapped in), so a walk cannot wander out of the tree it was given.
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
    return this.directory(this.root.canonical, '', this.root.identity, 0);
  }

  private async *directory(absolute: string, relative: string, identity: FileIdentity, depth: number): AsyncGenerator<WalkedEntry> {
    const children = await this.readChecked(absolute, identity, depth === 0);
    for (const { name, info } of children) {
      this.options.signal.throwIfAborted();
      if (this.visited >= maxVisited) {
        this.limitReached = true;
        return;
      }
      this.visited += 1;
      const child = path.join(absolute, name);
      if (this.options.withheld(child)) continue;
      const entry: WalkedEntry = { absolute: child, relative: relative ? `${relative}/${name}` : name, kind: kindOf(info), info };
      yield entry;
      if (entry.kind === 'directory' && this.options.recursive && !unwalkedDirectories.has(name) && depth < maxDepth) {
        yield* this.directory(child, entry.relative, { dev: info.dev, ino: info.ino }, depth + 1);
      }
    }
  }

  /**
   * Reads a directory's entries (sorted by name) through the directory opened and proved to be
   * the real directory that was found: a symlink swapped into its path cannot make the walk read
   * another directory's names.
   */
  private async readChecked(absolute: string, identity: FileIdentity, isRoot: boolean): Promise<{ name: string; info: Stats }[]> {
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
      return [];
    }
    try {
      const names = (await directory.names().catch((cause: unknown) => {
        if (isRoot) throw new ToolError('execution_failed', `cannot read directory ${absolute}: ${(cause as Error).message}`, { cause });
        return [];
      })).sort();
      const children: { name: string; info: Stats }[] = [];
      // Entries past the walk's budget are never visited, so they are not described either.
      for (const name of names.slice(0, maxVisited - this.visited + 1)) {
        const info = await directory.describe(name);
        if (info) children.push({ name, info });
      }
      return children;
    } finally {
      await directory.close();
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
