import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

type Environment = Readonly<Record<string, string | undefined>>;

/** The account's home from the password database, when it has one. */
function accountHome(): string | undefined {
  try {
    const home = os.userInfo().homedir;
    return path.isAbsolute(home) ? home : undefined;
  } catch {
    // No entry in the password database.
    return undefined;
  }
}

/**
 * The user's home directories a confined process must not see: `$HOME` and the account's own
 * (from the password database), so pointing HOME elsewhere hides more, never less.
 */
export function homeDirectories(hostEnv: Environment): string[] {
  const homes = [hostEnv.HOME && path.isAbsolute(hostEnv.HOME) ? hostEnv.HOME : undefined, accountHome()];
  return [...new Set(homes.filter((home): home is string => home !== undefined))];
}

/**
 * What `~` stands for in a workflow's paths: `$HOME` (the home the user's tools use), else the
 * account's; as it really is when it exists (links followed), so a rule naming `~/…` matches the
 * paths the file tools resolve. Undefined when the user has no home at all.
 */
export function runningUserHome(hostEnv: Environment): string | undefined {
  const home = hostEnv.HOME && path.isAbsolute(hostEnv.HOME) ? hostEnv.HOME : accountHome();
  if (home === undefined) return undefined;
  try {
    return realpathSync.native(home);
  } catch {
    return path.resolve(home);
  }
}
