import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ExecutableSelection } from '../../host/capability.js';
import { ToolError } from '../../host/errors.js';

/**
 * Probed synchronously: a PATH search is a handful of stat calls on local directories, each a
 * few microseconds, while every asynchronous probe is a round trip through libuv's thread pool
 * (and a thrown error for each directory that lacks the name), which made up a large part of
 * a process step's preparation.
 */
export function isExecutableFile(candidate: string): boolean {
  try {
    // A missing name (the common case while searching) returns undefined instead of throwing.
    if (!statSync(candidate, { throwIfNoEntry: false })?.isFile()) return false;
    accessSync(candidate, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A PATH value's search directories, each with the prefix a program name is appended to. */
interface SearchPath {
  value: string;
  directories: readonly string[];
  prefixes: readonly string[];
}

/** The last PATH value split: a run searches one PATH for every process, and the answer depends on the text alone. */
let lastSearch: SearchPath | undefined;

function searchPathOf(pathVariable: string | undefined): SearchPath {
  const value = pathVariable ?? '';
  if (lastSearch?.value === value) return lastSearch;
  // Normalized, and each directory once: a directory named twice (PATH often repeats one) can
  // only give the same answer again, for another stat(2) per process.
  const directories = [
    ...new Set(
      value
        .split(path.delimiter)
        .filter((entry) => path.isAbsolute(entry))
        .map((entry) => stripTrailingSeparator(path.normalize(entry))),
    ),
  ];
  const prefixes = directories.map((directory) => (directory.endsWith(path.sep) ? directory : `${directory}${path.sep}`));
  lastSearch = { value, directories: Object.freeze(directories), prefixes: Object.freeze(prefixes) };
  return lastSearch;
}

function stripTrailingSeparator(directory: string): string {
  return directory.length > 1 && directory.endsWith(path.sep) ? directory.slice(0, -1) : directory;
}

/**
 * The directories of a PATH value that are searched. Relative entries (including the empty
 * entry, which means "the current directory") are skipped: they would let a file in the
 * workspace stand in for a system program, and `process(rm)` must mean the `rm` on PATH.
 */
export function searchDirectories(pathVariable: string | undefined): readonly string[] {
  return searchPathOf(pathVariable).directories;
}

export interface ExecutableSearch {
  pathVariable: string | undefined;
  cwd: string;
  /** Canonical directories steps can write (the workspace root, granted roots). */
  writableRoots: readonly string[];
}

export function isUnder(file: string, roots: readonly string[]): boolean {
  return roots.some((root) => file === root || file.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`));
}

/**
 * Whether a program lies where steps can write, as named or as the target of a link: a step
 * could have planted it there.
 */
export function isWritableLocation(candidate: string, writableRoots: readonly string[]): boolean {
  if (isUnder(candidate, writableRoots)) return true;
  try {
    // One realpath(3) call: the JavaScript realpathSync walks every component with lstat.
    return isUnder(realpathSync.native(candidate), writableRoots);
  } catch {
    return true;
  }
}

/**
 * Resolves the program a call names, once, at preparation: a name with a `/` is an exact path
 * (relative to the call's cwd), anything else is searched on the host's PATH. The request
 * carries the absolute result, and that is what runs; a result found under a writable root is
 * marked so that only a rule naming its path can allow it.
 */
export async function resolveExecutable(command: string, options: ExecutableSearch): Promise<ExecutableSelection> {
  if (command.includes('/')) {
    const resolved = path.resolve(options.cwd, command);
    if (!isExecutableFile(resolved)) {
      throw new ToolError('not_found', `executable ${JSON.stringify(command)} is not an executable file (resolved to ${resolved})`, {
        details: { executable: command },
      });
    }
    return { requested: command, resolved, lookup: 'exact' };
  }
  if (command === '.' || command === '..') {
    throw new ToolError('invalid_arguments', `${JSON.stringify(command)} is not a program name`);
  }
  const { directories, prefixes } = searchPathOf(options.pathVariable);
  for (const prefix of prefixes) {
    // The same path as path.join: the prefix is normalized and the name has no separator.
    const candidate = prefix + command;
    if (!isExecutableFile(candidate)) continue;
    const selection: ExecutableSelection = { requested: command, resolved: candidate, lookup: 'path_search' };
    return isWritableLocation(candidate, options.writableRoots) ? { ...selection, writable: true } : selection;
  }
  throw new ToolError(
    'not_found',
    `executable ${JSON.stringify(command)} was not found on PATH (searched ${directories.length} director${directories.length === 1 ? 'y' : 'ies'}); install it or name it by path`,
    { details: { executable: command } },
  );
}

/** The first executable file named `name` in `directories` (absolute), or undefined. */
export function findInDirectories(name: string, directories: readonly string[]): string | undefined {
  return directories.map((directory) => path.join(directory, name)).find(isExecutableFile);
}
