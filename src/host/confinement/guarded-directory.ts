import path from 'node:path';
import { isWithin } from '../workspace.js';
import type { ConfinementPlan, WritableRoot } from './plan.js';

/**
 * The directory a step's sandbox guards for a writable root, or undefined when the root is
 * mounted on itself. A guarded directory is mounted writable with every other entry in it
 * mounted read-only over itself, so the root itself can be created, replaced by a rename
 * (`mv tmp.123 package-lock.json`) and removed (`rm -rf dist`), while nothing else there can be
 * changed. Only a directory inside the accepted roots (the workspace, granted roots) is guarded,
 * and only where the plan leaves it visible: never one inside a hidden home, the private temp,
 * a hidden path or a read-only one.
 */
export function guardedDirectory(plan: ConfinementPlan, root: WritableRoot): string | undefined {
  const directory = path.dirname(root.path);
  if (directory === root.path || !plan.acceptedRoots.some((accepted) => isWithin(accepted, directory))) return undefined;
  const emptied = plan.privateTemp ? [plan.privateTemp, ...plan.hiddenHomes] : plan.hiddenHomes;
  const covered = emptied.some((hidden) => isWithin(hidden, directory)) && !plan.exposed.some((exposed) => isWithin(exposed, directory));
  if (covered || [...plan.hidden, ...plan.readOnly].some((kept) => isWithin(kept, directory))) return undefined;
  return directory;
}

/**
 * A guarded directory, and whether it is `open`: inside a tree the policy's write rules grant
 * whole (a step narrowed by `writes:` under `write(**)`), so whatever a process creates there is
 * granted, and only the protected places are checked. A closed one is compared with what it
 * held when the process ends: what was created there that the step's roots do not grant is
 * removed, and denies the step.
 */
export interface GuardedDirectory {
  path: string;
  open: boolean;
}

/** The directories a step's sandbox guards (`guardedDirectory`), each once, outermost first. */
export function guardedDirectories(plan: ConfinementPlan): GuardedDirectory[] {
  const directories = new Set<string>();
  for (const root of plan.writable) {
    const directory = guardedDirectory(plan, root);
    if (directory !== undefined) directories.add(directory);
  }
  return [...directories].sort((a, b) => a.length - b.length).map((directory) => ({ path: directory, open: plan.grantedTrees.some((tree) => isWithin(tree, directory)) }));
}
