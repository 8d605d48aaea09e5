import { lstatSync } from 'node:fs';
import path from 'node:path';
import { guardedDirectory, type ConfinementPlan, type GuardedDirectory, type ProtectedPath, type WritableRoot } from '../../../host/confinement/index.js';
import { isWithin } from '../../../host/workspace.js';
import type { PathMount } from './backend.js';
import type { GuardLease } from './guard-locks.js';
import { guardDirectory, type DirectoryGuard } from './guarded-directory.js';
import { privateMounts } from './private-mounts.js';
import { protectPlaces } from './protected-mounts.js';
import type { UndoneWrite } from './undone-writes.js';

/** How one process's writable roots are mounted, and what is checked once it is gone. */
export interface WriteChecks {
  /** Guarded directories outermost first, then roots mounted on themselves, then protected places read-only. */
  mounts: PathMount[];
  /** Undoes what the process did outside its write rules; call once it and everything it started are gone. */
  check(): UndoneWrite[];
}

/**
 * Plans the write mounts of one launch, from the plan and the disk as they are now. Each root
 * whose directory is among `guarded` (a step that waits for its process) lives in that
 * directory (`guardDirectory`), checked with its lease when the directory is closed; every other
 * root is mounted on itself, unless it is a symlink, which would mount its target: such a root
 * stays read-only. The directories between a writable tree and rho's own inside it are pinned
 * (`privateMounts`). The protected places kept are those the process could write: inside its
 * roots, or new in an open guarded directory.
 */
export function prepareWriteChecks(plan: ConfinementPlan, guarded: readonly GuardedDirectory[], leases: ReadonlyMap<string, GuardLease>): WriteChecks {
  const byDirectory = new Map<string, WritableRoot[]>();
  const onItself: WritableRoot[] = [];
  for (const root of plan.writable) {
    const directory = guarded.find((candidate) => candidate.path === guardedDirectory(plan, root));
    if (directory === undefined || (!directory.open && !leases.has(directory.path))) onItself.push(root);
    else byDirectory.set(directory.path, [...(byDirectory.get(directory.path) ?? []), root]);
  }
  const guards: DirectoryGuard[] = [];
  const open: string[] = [];
  for (const [directory, roots] of [...byDirectory].sort(([a], [b]) => a.length - b.length)) {
    const guard = guardDirectory(directory, roots, leases.get(directory));
    if (!guard) onItself.push(...roots);
    else {
      guards.push(guard);
      if (!leases.has(directory)) open.push(directory);
    }
  }
  const writable = (place: ProtectedPath) =>
    plan.writable.some((root) => isWithin(root.path, place.path)) || open.some((directory) => isWithin(directory, place.path) && isNewIn(directory, place.path));
  const places = protectPlaces(plan.protected.filter(writable), plan.writable);
  const mounts = [
    ...guards.flatMap((guard) => guard.mounts),
    ...onItself.filter((root) => !lstatSync(root.path, { throwIfNoEntry: false })?.isSymbolicLink()).map((root) => ({ path: root.path, writable: true, ifPresent: true })),
    // After the roots they pin, before the read-only places they would otherwise cover.
    ...privateMounts(plan).pins,
    ...places.mounts,
  ];
  return { mounts, check: () => [...guards.flatMap((guard) => guard.check()), ...places.check()] };
}

/** Whether the entry of `directory` that holds `place` is missing, so a process may create it there. */
function isNewIn(directory: string, place: string): boolean {
  const [first] = path.relative(directory, place).split(path.sep);
  return first !== undefined && first !== '' && !lstatSync(path.join(directory, first), { throwIfNoEntry: false });
}
