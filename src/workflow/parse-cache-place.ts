/*
 * Where the workflow parse cache lives, apart from the cache itself (parse-cache.ts): the CLI
 * sets the place on every start (`src/cli/main.ts`), and only a command that reads a workflow
 * file loads the cache and the zod schema its entries are checked with.
 */

import type { DigestKey } from '../host/keyed-digest.js';

/** A directory of kept parses, and the key that seals them (asked for only when the cache is used; none: no cache). */
export interface ParseCachePlace {
  dir: string;
  key(): DigestKey | undefined;
}

let place: ParseCachePlace | undefined;

/** Sets where every workflow file's parse is kept (the CLI's; none by default, as in the library). */
export function useParseCache(chosen: ParseCachePlace | undefined): void {
  place = chosen;
}

/** The place set by `useParseCache`, if any. */
export function parseCachePlace(): ParseCachePlace | undefined {
  return place;
}
