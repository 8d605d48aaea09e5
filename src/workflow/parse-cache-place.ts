/*
 * Where the workflow parse cache lives, apart from the cache itself (parse-cache.ts): the CLI
 * sets the place on every start (`src/cli/cache-places.ts`), and only a command that reads a
 * workflow file loads the cache and the zod schema its entries are checked with.
 */

let place: string | undefined;

/** Sets where every workflow file's parse is kept (the CLI's; none by default, as in the library). */
export function useParseCache(dir: string | undefined): void {
  place = dir;
}

/** The place set by `useParseCache`, if any. */
export function parseCachePlace(): string | undefined {
  return place;
}
