import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ToolError } from './errors.js';
import { isWithin } from './path-within.js';

/*
 * How a lexical absolute path is placed on disk: the one resolver of the file tools (through
 * `Workspace`) and of confinement plans. Synchronous: each lookup is a few local system calls,
 * and a process launch resolves its plan right before its sandbox starts.
 */

function errorCode(cause: unknown): string | undefined {
  return (cause as NodeJS.ErrnoException | undefined)?.code;
}

/** The names in a directory; none when it cannot be read (missing, not a directory, no permission). */
export function directoryEntries(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}

/** Whether an entry exists under that name (a dangling link does); false when that cannot be told. */
export function pathExists(candidate: string): boolean {
  return lstatSync(candidate, { throwIfNoEntry: false }) !== undefined;
}

/** Whether an entry exists under that name (a dangling link exists); other failures throw. */
function entryExists(candidate: string): boolean {
  try {
    lstatSync(candidate);
    return true;
  } catch (cause) {
    if (errorCode(cause) === 'ENOENT' || errorCode(cause) === 'ENOTDIR') return false;
    throw cause;
  }
}

/**
 * The nearest existing ancestor of a path (as named, links not followed) and the names below it,
 * outermost first, the path's own name last; undefined when not even the root exists. Failures
 * other than a missing entry throw.
 */
export function missingBelow(lexical: string): { ancestor: string; missing: string[] } | undefined {
  const missing: string[] = [];
  let cursor = lexical;
  for (;;) {
    missing.unshift(path.basename(cursor));
    const parent = path.dirname(cursor);
    if (parent === cursor) return undefined;
    cursor = parent;
    if (entryExists(cursor)) return { ancestor: cursor, missing };
  }
}

/** Where a path lies with every link followed: the canonical nearest existing entry, the missing rest joined to it. */
export interface DiskLocation {
  canonical: string;
  /** The canonical nearest existing entry (the path itself when it exists). */
  existing: string;
  /** Names below `existing` that do not exist yet, outermost first. */
  missing: readonly string[];
}

/** Places a lexical absolute path on disk (realpath of what exists, the rest as named). Lookup failures throw their errno error. */
export function locateOnDisk(lexical: string): DiskLocation {
  if (entryExists(lexical)) {
    const existing = realpathSync.native(lexical);
    return { canonical: existing, existing, missing: [] };
  }
  const below = missingBelow(lexical);
  if (!below) throw Object.assign(new ToolError('not_found', `no existing parent directory of ${lexical}`), { code: 'ENOENT' });
  const { ancestor, missing } = below;
  const existing = realpathSync.native(ancestor);
  return { canonical: path.join(existing, ...missing), existing, missing };
}

/** Links followed before a resolution gives up (as the kernel's limit). */
const maxLinks = 40;

/** A link met while resolving whose directory a step may write: it may have been planted. */
export class UntrustedLink extends ToolError {
  constructor(
    readonly link: string,
    readonly target: string,
  ) {
    super('path_refused', `${link} is a symbolic link (to ${target}) in a place steps write`);
  }
}

/** A symbolic link met while placing a path: where it is, and the absolute path it points to. */
export interface LinkMet {
  path: string;
  target: string;
}

/**
 * `locateOnDisk`, following only links that no step can have planted: a link whose directory
 * lies inside one of `untrusted` (the workspace, writable roots, caches) throws UntrustedLink.
 * Also returns every link it followed, so a sandbox can recreate them where it hides their directory.
 */
export function locateThroughTrustedLinks(lexical: string, untrusted: readonly string[]): DiskLocation & { links: LinkMet[] } {
  let pending = path.resolve(lexical).split(path.sep).filter(Boolean);
  let resolved: string = path.sep;
  const links: LinkMet[] = [];
  while (pending.length > 0) {
    const name = pending.shift()!;
    const next = path.join(resolved, name);
    let target: string | undefined;
    try {
      target = lstatSync(next).isSymbolicLink() ? readlinkSync(next) : undefined;
    } catch (cause) {
      if (errorCode(cause) !== 'ENOENT' && errorCode(cause) !== 'ENOTDIR') throw cause;
      return { canonical: path.join(resolved, name, ...pending), existing: resolved, missing: [name, ...pending], links };
    }
    if (target === undefined) {
      resolved = next;
      continue;
    }
    const absolute = path.resolve(resolved, target);
    if (untrusted.some((place) => isWithin(place, resolved))) throw new UntrustedLink(next, absolute);
    if (links.length >= maxLinks) throw Object.assign(new ToolError('path_refused', `too many symbolic links resolving ${lexical}`), { code: 'ELOOP' });
    links.push({ path: next, target: absolute });
    pending = [...absolute.split(path.sep).filter(Boolean), ...pending];
    resolved = path.sep;
  }
  return { canonical: resolved, existing: resolved, missing: [], links };
}

/**
 * Every existing path that names `lexical` in NFC, the form rules compare names in: a name
 * composed on one side and decomposed on disk (`café` and `cafe\u0301`) is the same name to a
 * rule, and a directory may hold both. Components in ASCII are only looked up as they are. The
 * path itself when nothing matches (it does not exist under any spelling).
 */
export function spellingsOnDisk(lexical: string): string[] {
  let bases: string[] = [path.parse(lexical).root];
  for (const name of path.resolve(lexical).split(path.sep).filter(Boolean)) {
    const composed = name.normalize('NFC');
    const next: string[] = [];
    for (const base of bases) {
      const exact = path.join(base, name);
      if (entryExists(exact)) next.push(exact);
      if (/^[\x00-\x7f]*$/.test(name)) continue;
      for (const entry of directoryEntries(base)) {
        if (entry !== name && entry.normalize('NFC') === composed) next.push(path.join(base, entry));
      }
    }
    if (next.length === 0) return [lexical];
    bases = next;
  }
  return bases;
}
