import { statSync } from 'node:fs';
import path from 'node:path';
import type { ConfinementPlan } from '../../../host/confinement/index.js';
import { isWithin } from '../../../host/workspace.js';
import type { PathMount } from './backend.js';

/** What keeps rho's own directories from a confined process, in the two places it goes. */
export interface PrivateMounts {
  /** After the writable roots: the directories above rho's, each mounted writable on itself, which keeps them in place. */
  pins: PathMount[];
  /** After every other mount inside the writable roots: rho's directories, each covered by an empty read-only one. */
  hides: string[];
}

/**
 * How rho's own directories (`plan.privatePaths`) are kept from a confined process. Each is
 * covered by an empty read-only file system. Inside a writable root that alone would not do: the
 * process could rename a directory above one aside and make its own in its place, which rho would
 * read the next time. A mount point cannot be renamed or removed, so every directory between the
 * writable root and rho's is bound onto itself (still writable: the process loses nothing the
 * rules gave it). A directory that does not exist has nothing to hide (rho creates its own before
 * any process starts).
 */
export function privateMounts(plan: ConfinementPlan): PrivateMounts {
  const pins = new Set<string>();
  const hides: string[] = [];
  for (const dir of plan.privatePaths) {
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) continue;
    hides.push(dir);
    for (const root of plan.writable) {
      if (root.kind !== 'tree' || root.path === dir || !isWithin(root.path, dir)) continue;
      for (let level = path.dirname(dir); level !== root.path && isWithin(root.path, level); level = path.dirname(level)) pins.add(level);
    }
  }
  // Outermost first: a bind made later over a directory would cover the binds below it (its source is the host's tree, without them).
  const ordered = [...pins].sort((a, b) => a.length - b.length);
  return { pins: ordered.map((level) => ({ path: level, writable: true, ifPresent: false })), hides };
}
