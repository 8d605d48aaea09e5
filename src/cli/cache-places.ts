import path from 'node:path';
import { existingHome, userCacheDir } from '../boot/cache-base.js';
import type { ParseCachePlace } from '../workflow/parse-cache.js';
import { PrivateStore } from '../workflow/private/store.js';

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Where rho keeps state that must outlive a run (the key, each workspace's up-to-date records)
 * and what a person may want to read later (step logs): `$XDG_STATE_HOME/rho`, else `~/.local/state/rho`. A relative XDG_STATE_HOME is ignored, as
 * the XDG base directory specification says; without an absolute home that exists there is none.
 */
export function userStateDir(env: Environment): string | undefined {
  const xdg = env['XDG_STATE_HOME'];
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'rho');
  const home = existingHome();
  return home && path.join(home, '.local', 'state', 'rho');
}

/** The store of this process, opened once: undefined when there is no place for it or it cannot be made. */
let opened: { places: string; store: PrivateStore | undefined } | undefined;

/**
 * rho's own directories and key (`PrivateStore`), made on first use. Without them nothing is
 * kept between runs: no workflow parses, no sandbox memory, no up-to-date records.
 */
export function privateStoreOf(env: Environment): PrivateStore | undefined {
  const state = userStateDir(env);
  const cache = userCacheDir(env);
  const places = JSON.stringify([state, cache]);
  if (opened?.places !== places) {
    let store: PrivateStore | undefined;
    try {
      store = state === undefined ? undefined : PrivateStore.open({ state, cache });
    } catch {
      // A home that cannot be written to (a read-only file system, another owner): rho runs, keeping nothing.
      store = undefined;
    }
    opened = { places, store };
  }
  return opened.store;
}

/** Where the CLI keeps workflow parses: `workflows` in rho's cache; none with RHO_NO_WORKFLOW_CACHE=1. */
export function parseCacheDir(env: Environment): string | undefined {
  if (env['RHO_NO_WORKFLOW_CACHE'] === '1') return undefined;
  const base = userCacheDir(env);
  return base && path.join(base, 'workflows');
}

/** The place of this process's workflow parses, made once per directory. */
let parses: ParseCachePlace | undefined;

/**
 * Where the CLI keeps workflow parses (`parseCacheDir`), sealed with rho's key, which is read
 * only when a command reads a workflow file.
 */
export function workflowParseCache(env: Environment): ParseCachePlace | undefined {
  const dir = parseCacheDir(env);
  if (dir === undefined) return undefined;
  if (parses?.dir !== dir) parses = { dir, key: () => privateStoreOf(env)?.key };
  return parses;
}

/** Where `rho run` remembers a sandbox that worked (`src/tools/process/sandbox/probe-memory.ts`). */
export function sandboxProbeMemory(env: Environment): string | undefined {
  const base = userCacheDir(env);
  return base && path.join(base, 'sandbox-probe');
}
