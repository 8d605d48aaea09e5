import { lstatSync, mkdirSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import type { ResolvedPlan } from '../../../host/confinement/index.js';
import { ToolError } from '../../../host/errors.js';

/**
 * Directories this process created so that a confined process could mount a granted tree
 * that did not exist yet, with how many live sandboxes still mount each. Shared by every launch
 * of the process, since two steps granted the same tree may run at once.
 */
const created = new Map<string, number>();

/** What `prepareWritableTrees` created for one launch; `release` is safe to call more than once. */
export interface WritableTrees {
  release(): void;
}

/**
 * Creates the granted writable trees that do not exist yet, so the sandbox can mount them and
 * the process can write into them, and the `directories` a granted entry is created in (a
 * guarded directory). Once the process is gone, `release` removes what was created
 * for it and is still empty, deepest first, unless another live sandbox still mounts it: a run
 * leaves behind only the directories its processes wrote into (a `write(man/**)` rule no longer
 * leaves an empty `man/` after every step that never wrote there).
 */
export function prepareWritableTrees(plan: ResolvedPlan, directories: readonly string[] = []): WritableTrees {
  const held: string[] = [];
  const trees = plan.writable.filter((root) => root.kind === 'tree').map((root) => root.path);
  try {
    for (const tree of [...trees, ...directories]) {
      const first = makeTree(tree);
      for (const level of levelsCreated(first, tree)) created.set(level, 0);
      for (const level of trackedLevels(tree)) {
        created.set(level, created.get(level)! + 1);
        held.push(level);
      }
    }
  } catch (error) {
    releaseLevels(held);
    throw error;
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      releaseLevels(held);
    },
  };
}

/**
 * `mkdir -p` that never goes through a link: each level is created on its own and must then be a
 * directory, so a link planted where a level was missing (since the plan was resolved) refuses
 * the launch instead of moving the tree. Returns the first level it created, if any.
 */
function makeTree(target: string): string | undefined {
  let first: string | undefined;
  const names = target.split(path.sep).filter(Boolean);
  for (let depth = 1; depth <= names.length; depth++) {
    const level = path.join(path.sep, ...names.slice(0, depth));
    const info = lstatSync(level, { throwIfNoEntry: false });
    if (info?.isDirectory()) continue;
    if (info)
      throw new ToolError(
        'policy_denied',
        `writable root ${target}: ${level} is ${info.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}; rho creates no directory through it`,
      );
    try {
      mkdirSync(level);
    } catch (cause) {
      // Made meanwhile by another launch: fine if it is a directory, checked on the next pass.
      if ((cause as NodeJS.ErrnoException).code !== 'EEXIST') throw cause;
      depth--;
      continue;
    }
    first ??= level;
  }
  return first;
}

/** The directories `makeTree(target)` made, from `first` (what it returned) down to `target`. */
function levelsCreated(first: string | undefined, target: string): string[] {
  if (first === undefined) return [];
  const levels = [target];
  for (let level = target; level !== first; ) {
    const parent = path.dirname(level);
    if (parent === level) break;
    levels.push((level = parent));
  }
  return levels;
}

/** `target` and its ancestors that this process created and still tracks. */
function trackedLevels(target: string): string[] {
  const levels: string[] = [];
  for (let level = target; created.has(level); level = path.dirname(level)) levels.push(level);
  return levels;
}

/** Drops one hold on each level; removes the levels no sandbox holds any more, deepest first, while they are empty. */
function releaseLevels(levels: readonly string[]): void {
  const free: string[] = [];
  for (const level of levels) {
    const holds = created.get(level)! - 1;
    created.set(level, holds);
    if (holds === 0) free.push(level);
  }
  for (const level of free.sort((a, b) => b.length - a.length)) {
    if (created.get(level) !== 0) continue;
    created.delete(level);
    try {
      rmdirSync(level);
    } catch {
      // Not empty (the process wrote into it, or someone else did) or already gone: it stays as it is.
    }
  }
}
