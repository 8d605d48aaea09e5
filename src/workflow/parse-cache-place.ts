import path from 'node:path';
import { userCacheDir } from '../boot/cache-base.js';

/*
 * Where the workflow parse cache lives, apart from the cache itself (parse-cache.ts): the CLI
 * sets the place on every start, and only a command that reads a workflow file loads the
 * cache and the zod schema its entries are checked with.
 */

/** Where parses are kept: `workflows` in the user's cache (`userCacheDir`); none with RHO_NO_WORKFLOW_CACHE=1. */
export function parseCacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env['RHO_NO_WORKFLOW_CACHE'] === '1') return undefined;
  const base = userCacheDir(env);
  return base && path.join(base, 'workflows');
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
