import os from 'node:os';
import path from 'node:path';

/*
 * Where the workflow parse cache lives, apart from the cache itself (parse-cache.ts): the CLI
 * sets the place on every start, and only a command that reads a workflow file loads the
 * cache and the zod schema its entries are checked with.
 */

/**
 * Where parses are kept: `$XDG_CACHE_HOME/rho/workflows`, else `~/.cache/rho/workflows`; none
 * with RHO_NO_WORKFLOW_CACHE=1, or when that place is not an absolute path (it would be read
 * relative to the workspace).
 */
export function parseCacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env['RHO_NO_WORKFLOW_CACHE'] === '1') return undefined;
  const base = env['XDG_CACHE_HOME'] || path.join(os.homedir(), '.cache');
  return path.isAbsolute(base) ? path.join(base, 'rho', 'workflows') : undefined;
}

let place: string | undefined;

/** Sets where every workflow file's parse is kept (the CLI's; none by default, as in the library). */
export function useParseCache(dir: string | undefined): void {
  place = dir;
}

/** The place set by `useParseCache`, if any. */
export function parseCachePlace(): string | undefined {
  return place;
}
