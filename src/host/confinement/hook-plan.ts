import path from 'node:path';
import { isWithin } from '../workspace.js';
import { choosePrivateTemp, existingHomes, exposedWithin, type ConfinementPlan } from './plan.js';

export interface HookConfinementInput {
  /** The directory of the file that declares the hook (its cwd): readable even inside a hidden home. */
  baseDirectory: string;
  /** Directories (relative to `baseDirectory`) the hook may write into: its `writes` entry. */
  writes: readonly string[];
  homeDirectories: readonly string[];
}

/**
 * How a hook program is confined. Hooks are not authorized by the workflow's rules, so they get
 * what a gate or an observer needs and no more: everything read-only, the user's home hidden
 * (the hook's own directory stays visible), no network, a private TMPDIR, and writable only
 * the directories its `writes` entry names (an audit log's, say).
 */
export function hookConfinementPlan(input: HookConfinementInput): ConfinementPlan {
  const writable = input.writes.map((entry) => ({ path: path.resolve(input.baseDirectory, entry), kind: 'tree' as const }));
  const granted = [input.baseDirectory, ...writable.map((root) => root.path)];
  const hiddenHomes = existingHomes(input.homeDirectories).filter((home) => home !== path.sep && !granted.some((grant) => isWithin(grant, home)));
  const privateTemp = choosePrivateTemp(granted);
  return {
    writable,
    readOnly: [],
    hiddenHomes,
    privateTemp,
    hidden: [],
    exposed: exposedWithin([...hiddenHomes, ...(privateTemp ? [privateTemp] : [])], [input.baseDirectory]),
    toolchains: [],
    network: { mode: 'none' },
    scope: { workspace: input.baseDirectory, roots: granted, writable: writable.map((root) => root.path), places: writable.map((root) => root.path), caches: [] },
  };
}
