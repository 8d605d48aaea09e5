import { realpathSync } from 'node:fs';
import type { ProtectedPath, WritableRoot } from '../../../host/confinement/index.js';
import { isWithin } from '../../../host/workspace.js';
import type { PathMount } from './backend.js';
import { currentState, removeCreated, restoreLink, type UndoneWrite } from './undone-writes.js';

/** Protected places as the sandbox keeps them: mounts for those that exist, a check for the rest. */
export interface ProtectedMounts {
  mounts: PathMount[];
  /** Once the process is gone: removes protected places it created, and puts back symlinks it changed. */
  check(): UndoneWrite[];
}

/**
 * Keeps the protected places inside writable roots as they are. One that exists is mounted
 * read-only over itself. One that is missing cannot be mounted over without creating it on the
 * host, so it is checked when the process ends: if it exists then, it is removed. A symlink is
 * put back if changed, and its target, where that lies in a writable root, is mounted read-only
 * (it is what later runs).
 */
export function protectPlaces(places: readonly ProtectedPath[], writable: readonly WritableRoot[]): ProtectedMounts {
  const mounts: PathMount[] = [];
  const missing: ProtectedPath[] = [];
  const links: { place: ProtectedPath; link: string }[] = [];
  for (const place of places) {
    const state = currentState(place.path);
    if (!state) missing.push(place);
    else if (state.kind === 'symlink') {
      links.push({ place, link: state.link! });
      const target = resolvedOrUndefined(place.path);
      if (target && writable.some((root) => isWithin(root.path, target))) mounts.push(readOnly(target));
    } else if (!(state.kind === 'directory' && place.unlessDirectory)) mounts.push(readOnly(place.path));
  }
  return {
    mounts,
    check() {
      const undone: UndoneWrite[] = [];
      // Outermost first: a created .git is removed whole, and its hooks are not named again.
      for (const place of [...missing].sort((a, b) => a.path.length - b.path.length)) {
        if (undone.some((write) => isWithin(write.path, place.path)) || !currentState(place.path)) continue;
        undone.push({ path: place.path, change: 'created', runs: place.runs, undone: removeCreated(place.path) });
      }
      for (const { place, link } of links) {
        const state = currentState(place.path);
        if (state?.kind === 'symlink' && state.link === link) continue;
        undone.push({ path: place.path, change: state ? 'changed' : 'removed', runs: place.runs, undone: restoreLink(place.path, link) });
      }
      return undone;
    },
  };
}

function resolvedOrUndefined(target: string): string | undefined {
  try {
    return realpathSync(target);
  } catch {
    return undefined;
  }
}

/** A place kept read-only where it exists. */
function readOnly(target: string): PathMount {
  return { path: target, writable: false, ifPresent: true };
}
