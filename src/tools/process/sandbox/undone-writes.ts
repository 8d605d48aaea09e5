import { chmodSync, lstatSync, readdirSync, readlinkSync, rmSync, symlinkSync, type Stats } from 'node:fs';
import path from 'node:path';

/** Something a confined process did outside its write rules, found once it was gone, and whether rho undid it. */
export interface UndoneWrite {
  path: string;
  /** `changed` and `removed`: a symlink; `permissions`: a guarded directory's own mode. */
  change: 'created' | 'changed' | 'removed' | 'permissions';
  /** For a protected place: what would have run a file written there. */
  runs?: string;
  /** False when undoing it failed: the path is as the process left it. */
  undone: boolean;
}

/** What an entry was, as far as the checks compare it: its kind, and for a symlink its target. */
export interface EntryState {
  kind: 'directory' | 'file' | 'symlink' | 'other';
  link?: string;
}

export function entryState(info: Stats, absolute: string): EntryState {
  if (info.isSymbolicLink()) return { kind: 'symlink', link: readlinkSync(absolute) };
  return { kind: info.isDirectory() ? 'directory' : info.isFile() ? 'file' : 'other' };
}

/** The state of a path without following a final symlink, or undefined when it does not exist (or cannot be read). */
export function currentState(absolute: string): EntryState | undefined {
  try {
    const info = lstatSync(absolute, { throwIfNoEntry: false });
    return info && entryState(info, absolute);
  } catch {
    return undefined;
  }
}

/** Lets the owner remove everything below `directory` (a process may leave directories it made unwritable). */
function makeRemovable(directory: string): void {
  chmodSync(directory, 0o700);
  for (const name of readdirSync(directory)) {
    const entry = path.join(directory, name);
    if (lstatSync(entry).isDirectory()) makeRemovable(entry);
  }
}

/** Removes what a process created (never following a symlink); whether it is gone. */
export function removeCreated(absolute: string): boolean {
  try {
    rmSync(absolute, { recursive: true, force: true });
    return true;
  } catch {
    try {
      makeRemovable(absolute);
      rmSync(absolute, { recursive: true, force: true });
      return true;
    } catch {
      return false;
    }
  }
}

/** Puts a symlink back as it was; whether that worked. */
export function restoreLink(absolute: string, link: string): boolean {
  if (!removeCreated(absolute)) return false;
  try {
    symlinkSync(link, absolute);
    return true;
  } catch {
    return false;
  }
}
