import { chmodSync, lstatSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { WritableRoot } from '../../../host/confinement/index.js';
import type { PathMount } from './backend.js';
import type { GuardLease } from './guard-locks.js';
import { currentState, entryState, removeCreated, restoreLink, type EntryState, type UndoneWrite } from './undone-writes.js';

/**
 * Entries a guarded directory may hold. Each entry is a mount, and a sandbox that re-reads the
 * mount table for every mount starts in time that grows with the square of their number (about
 * 90 ms for 100 on a laptop, over a second for 400); a directory holding more is not guarded, and
 * its roots are mounted on themselves.
 */
export const maxGuardedEntries = 200;

/**
 * The files SQLite keeps beside a database while it writes, or leaves beside it in some journal
 * modes: part of a granted entry, since removing a hot journal would corrupt the database.
 */
const sqliteCompanions = ['-journal', '-wal', '-shm'];

/** The names in a guarded directory that its roots grant: each root, and beside an entry its SQLite files. */
function grantedNames(roots: readonly WritableRoot[]): Set<string> {
  const names = new Set<string>();
  for (const root of roots) {
    const name = path.basename(root.path);
    names.add(name);
    if (root.kind === 'entry') for (const suffix of sqliteCompanions) names.add(`${name}${suffix}`);
  }
  return names;
}

/** One guarded directory, as the sandbox mounts it and as the check compares it. */
export interface DirectoryGuard {
  /** Bind the directory writable, then every entry no root grants read-only over itself. */
  mounts: PathMount[];
  /** Once the process is gone: removes what it created there, puts back symlinks it changed and the directory's mode. */
  check(): UndoneWrite[];
}

/**
 * Guards `directory` for the `roots` inside it, as it is now, or returns undefined when it
 * cannot be guarded (not a directory, a symlink, or more than `maxGuardedEntries` entries).
 * Existing entries other than the granted ones become mount points, which cannot be changed,
 * removed or renamed over; a symlink cannot be mounted over without mounting its target, so it
 * is compared instead, and put back if changed. Without a `lease` the directory is open (a
 * policy tree grants all of it): nothing is checked. With one, what it exempts (another
 * sandbox's roots) is left alone by the check.
 */
export function guardDirectory(directory: string, roots: readonly WritableRoot[], lease: GuardLease | undefined): DirectoryGuard | undefined {
  const info = lstatSync(directory, { throwIfNoEntry: false });
  if (!info?.isDirectory()) return undefined;
  const names = readdirSync(directory);
  if (names.length > maxGuardedEntries) return undefined;
  const granted = grantedNames(roots);
  const before = new Map<string, EntryState>();
  const mounts: PathMount[] = [{ path: directory, writable: true, ifPresent: false }];
  for (const name of names) {
    if (granted.has(name)) continue;
    const absolute = path.join(directory, name);
    const entry = lstatSync(absolute, { throwIfNoEntry: false });
    if (!entry) continue;
    const state = entryState(entry, absolute);
    before.set(name, state);
    if (state.kind !== 'symlink') mounts.push({ path: absolute, writable: false, ifPresent: true });
  }
  const mode = info.mode & 0o7777;
  if (!lease) return { mounts, check: () => [] };
  return {
    mounts,
    check() {
      try {
        return checkDirectory(directory, granted, before, mode, lease);
      } catch {
        // The directory itself is gone or unreadable: a mount point inside the sandbox, so not the process's doing.
        return [];
      }
    },
  };
}

function checkDirectory(directory: string, granted: ReadonlySet<string>, before: ReadonlyMap<string, EntryState>, mode: number, lease: GuardLease): UndoneWrite[] {
  const undone: UndoneWrite[] = [];
  const now = new Set(readdirSync(directory));
  for (const name of now) {
    if (granted.has(name)) continue;
    const absolute = path.join(directory, name);
    const was = before.get(name);
    if (!was) {
      if (lease.exempts(absolute)) continue;
      undone.push({ path: absolute, change: 'created', undone: removeCreated(absolute) });
      continue;
    }
    const state = currentState(absolute);
    // Only a symlink could be changed from inside: every other entry was a read-only mount point.
    if (was.kind === 'symlink' && (state?.kind !== 'symlink' || state.link !== was.link)) {
      undone.push({ path: absolute, change: 'changed', undone: restoreLink(absolute, was.link!) });
    }
  }
  for (const [name, was] of before) {
    if (now.has(name) || was.kind !== 'symlink') continue;
    const absolute = path.join(directory, name);
    undone.push({ path: absolute, change: 'removed', undone: restoreLink(absolute, was.link!) });
  }
  if ((statSync(directory).mode & 0o7777) !== mode) {
    let restored = true;
    try {
      chmodSync(directory, mode);
    } catch {
      restored = false;
    }
    undone.push({ path: directory, change: 'permissions', undone: restored });
  }
  return undone;
}
