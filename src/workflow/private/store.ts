import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { DigestKey } from '../../host/keyed-digest.js';
import { loadUserKey } from './user-key.js';
import { HostError } from '../../host/errors.js';

/** Where rho keeps what is its own: state that must outlive a run, and what only saves time. */
export interface PrivatePlaces {
  /** `$XDG_STATE_HOME/rho`, else `~/.local/state/rho`: the key and each workspace's state. */
  state: string;
  /** `$XDG_CACHE_HOME/rho`, else `~/.cache/rho`: compiled code, workflow parses, the sandbox probe's memory. */
  cache: string | undefined;
}

/**
 * rho's own directories and the user's key. No step reads or writes them, whatever its rules:
 * every sandbox hides them (`ConfinementPlan.privatePaths`), the file tools refuse paths in them
 * (`WorkspaceOptions.privatePaths`), and what rho reads back from them is sealed with the key
 * (`sealText`), so a file put there by anyone else is ignored.
 */
export class PrivateStore {
  private constructor(
    /** The state directory, canonical. */
    readonly stateDirectory: string,
    /** The cache directory, canonical, if there is one. */
    readonly cacheDirectory: string | undefined,
    readonly key: DigestKey,
  ) {}

  /**
   * Makes the directories (private to the user) and reads or makes the key. They exist before
   * any confined process starts, so none can make them first and fill them with its own.
   */
  static open(places: PrivatePlaces): PrivateStore {
    const state = privateDirectory(places.state);
    const cache = places.cache === undefined ? undefined : privateDirectory(places.cache);
    return new PrivateStore(state, cache, loadUserKey(state));
  }

  /** Every directory of rho's own. */
  get paths(): readonly string[] {
    return this.cacheDirectory === undefined ? [this.stateDirectory] : [this.stateDirectory, this.cacheDirectory];
  }

  /**
   * The directory of what rho keeps for one workspace (by its canonical root): its up-to-date
   * state, and whatever else rho keeps per workspace. Named for the workspace's directory, so a
   * person can find it, and a digest of its whole path, so two workspaces never share one.
   */
  workspaceDirectory(root: string): string {
    const name =
      path
        .basename(root)
        .replace(/[^A-Za-z0-9._-]/g, '_')
        .slice(0, 64) || 'root';
    const digest = createHash('sha256').update(root).digest('hex').slice(0, 16);
    return path.join(this.stateDirectory, 'workspaces', `${name}-${digest}`);
  }
}

/** A directory only the user may enter, made when missing, by its canonical path (a start-up cost: few system calls when it exists). */
function privateDirectory(dir: string): string {
  let canonical: string;
  try {
    canonical = realpathSync.native(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    canonical = realpathSync.native(dir);
  }
  const info = statSync(canonical);
  if (!info.isDirectory()) throw new HostError('invalid_configuration', `${canonical} is not a directory`);
  if ((info.mode & 0o077) !== 0) chmodSync(canonical, 0o700);
  return canonical;
}
