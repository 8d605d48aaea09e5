import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

/**
 * Where rho keeps what a person may want to read later and that is no one else's to write:
 * `$XDG_STATE_HOME/rho`, else `~/.local/state/rho` (the XDG base directory specification's place
 * for logs). A relative XDG_STATE_HOME is ignored, as the specification says; without an
 * absolute home there is none.
 */
export function userStateDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const xdg = env['XDG_STATE_HOME'];
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'rho');
  const home = os.homedir();
  return path.isAbsolute(home) ? path.join(home, '.local', 'state', 'rho') : undefined;
}

/**
 * The default place of a workspace's step logs: `logs/NAME-DIGEST` in the user's state
 * directory, one place per workspace root (its name for a reader, a digest of its path to tell
 * two apart). Outside the workspace, so no step's rules or globs ever reach it, and under the
 * home that confined steps do not see.
 */
export function defaultLogPlace(env: Readonly<Record<string, string | undefined>>, workspaceRoot: string): string | undefined {
  const base = userStateDir(env);
  if (base === undefined) return undefined;
  const name = path.basename(workspaceRoot).replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '') || 'root';
  const digest = createHash('sha256').update(workspaceRoot).digest('hex').slice(0, 12);
  return path.join(base, 'logs', `${name}-${digest}`);
}
