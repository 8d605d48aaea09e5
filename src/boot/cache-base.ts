import os from 'node:os';
import path from 'node:path';

/**
 * Where rho keeps what only saves time (compiled code, workflow parses, a working sandbox):
 * `$XDG_CACHE_HOME/rho`, else `~/.cache/rho`. A relative XDG_CACHE_HOME is ignored, as the XDG
 * base directory specification says; without an absolute home there is no cache at all (a
 * relative one would be read relative to the workspace).
 */
export function userCacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'rho');
  const home = os.homedir();
  return path.isAbsolute(home) ? path.join(home, '.cache', 'rho') : undefined;
}
