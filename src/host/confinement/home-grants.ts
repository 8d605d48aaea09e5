import { pathExists } from '../disk-paths.js';
import { isWithin } from '../path-within.js';
import { existingMatches, placeOf, type PlaceContext } from './places.js';
import { cacheLayouts, toolchainLayouts, type CacheName } from './toolchains.js';

/*
 * What the home gives a confinement plan without a rule: the toolchains installed there
 * (readable, their credential files hidden) and, by name, the caches a policy grants.
 */

/** A toolchain found under the home: its installation stays readable (`toolchains.ts`). */
export interface FoundToolchain {
  name: string;
  /** Its places that exist, as named (links not followed). */
  paths: readonly string[];
}

/** One directory of a cache, as this run places it. */
export interface PlacedCache {
  name: CacheName;
  path: string;
}

function places(specs: readonly string[], context: PlaceContext): string[] {
  return [...new Set(specs.flatMap((spec) => placeOf(spec, context) ?? []))];
}

/** Every cache directory of the table, as this run places it: where a step may write, whichever caches a policy grants. */
export function placedCaches(context: PlaceContext): PlacedCache[] {
  return cacheLayouts.flatMap((layout) => places(layout.writes, context).map((directory) => ({ name: layout.name, path: directory })));
}

/**
 * The directories of the caches a policy names. One in a home that does not exist is left out:
 * rho creates a missing cache directory, never a home.
 */
export function grantedCaches(every: readonly PlacedCache[], names: readonly CacheName[], homeDirectories: readonly string[]): PlacedCache[] {
  const missingHomes = homeDirectories.filter((home) => !pathExists(home));
  return every.filter((cache) => names.includes(cache.name) && !missingHomes.some((home) => isWithin(home, cache.path)));
}

/** The toolchains of the table that exist here, and their credential files that no read rule grants (`readGranted`). */
export function toolchainsFound(context: PlaceContext, readGranted: (file: string) => boolean): { found: FoundToolchain[]; credentials: string[] } {
  const found: FoundToolchain[] = [];
  const credentials: string[] = [];
  for (const layout of toolchainLayouts) {
    const paths = places(layout.reads, context).filter(pathExists);
    if (paths.length === 0) continue;
    found.push({ name: layout.name, paths });
    credentials.push(
      ...places(layout.hides ?? [], context)
        .flatMap(existingMatches)
        .filter((file) => !readGranted(file)),
    );
  }
  return { found, credentials };
}
