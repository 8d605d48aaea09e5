import path from 'node:path';
import { isWithin } from '../workspace.js';
import { choosePrivateTemp, existingHomes, exposedWithin, outsidePrivate, type ConfinementPlan } from './plan.js';

export interface HookConfinementInput {
  /** The directory of the file that declares the hook (its cwd): readable even inside a hidden home. */
  baseDirectory: string;
  /** Directories (relative to `baseDirectory`) the hook may write into: its `writes` entry. */
  writes: readonly string[];
  homeDirectories: readonly string[];
  /** rho's own directories: hidden from hooks as from every confined process. */
  privatePaths?: readonly string[];
}

/**
 * How a hook program is confined. Hooks are not authorized by the workflow's rules, so they get
 * what a gate or an observer needs and no more: everything read-only, the user's home and rho's
 * own directories hidden (the hook's own directory stays visible), no network and no unix
 * sockets, a private TMPDIR,
 * and writable only the directories its `writes` entry names (an audit log's, say).
 */
export function hookConfinementPlan(input: HookConfinementInput): ConfinementPlan {
  const privatePaths = input.privatePaths ?? [];
  const writable = outsidePrivate(
    input.writes.map((entry) => ({ path: path.resolve(input.baseDirectory, entry), kind: 'tree' as const })),
    privatePaths,
  );
  const granted = [input.baseDirectory, ...writable.map((root) => root.path)];
  const hiddenHomes = existingHomes(input.homeDirectories).filter((home) => home !== path.sep && !granted.some((grant) => isWithin(grant, home)));
  const privateTemp = choosePrivateTemp(granted);
  return {
    writable,
    readOnly: [],
    protected: [],
    acceptedRoots: [],
    grantedTrees: writable.map((root) => root.path),
    hiddenHomes,
    privateTemp,
    hidden: [],
    exposed: exposedWithin([...hiddenHomes, ...(privateTemp ? [privateTemp] : [])], [input.baseDirectory]),
    toolchains: [],
    privatePaths,
    network: { mode: 'none' },
    unixSockets: false,
    scope: { workspace: input.baseDirectory, roots: granted, writable: writable.map((root) => root.path), places: writable.map((root) => root.path), caches: [] },
  };
}
