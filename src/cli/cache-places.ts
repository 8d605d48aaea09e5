import path from 'node:path';
import { userCacheDir } from '../boot/cache-base.js';

/** Where the CLI keeps workflow parses: `workflows` in the user's cache (`userCacheDir`); none with RHO_NO_WORKFLOW_CACHE=1. */
export function parseCacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env['RHO_NO_WORKFLOW_CACHE'] === '1') return undefined;
  const base = userCacheDir(env);
  return base && path.join(base, 'workflows');
}

/** Where `rho run` remembers a sandbox that worked (`src/tools/process/sandbox/probe-memory.ts`). */
export function sandboxProbeMemory(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const base = userCacheDir(env);
  return base && path.join(base, 'sandbox-probe');
}
