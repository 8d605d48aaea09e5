import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The home rho's default places lie in: the user's, when it is absolute and exists. A home that
 * does not exist (`nobody`'s `/nonexistent`) is never created, so it gives no default place.
 */
export function existingHome(): string | undefined {
  const home = os.homedir();
  try {
    return path.isAbsolute(home) && statSync(home).isDirectory() ? home : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where rho keeps what only saves time (compiled code, workflow parses, a working sandbox):
 * `$XDG_CACHE_HOME/rho`, else `~/.cache/rho`. A relative XDG_CACHE_HOME is ignored, as the XDG
 * base directory specification says; without an absolute home that exists there is no cache at
 * all (a relative one would be read relative to the workspace).
 */
export function userCacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'rho');
  const home = existingHome();
  return home && path.join(home, '.cache', 'rho');
}
