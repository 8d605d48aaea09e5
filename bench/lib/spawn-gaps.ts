import { fileURLToPath } from 'node:url';
import { reportedRun } from './reported-run.js';

const reporter = fileURLToPath(new URL('./report-spawn-gaps.mjs', import.meta.url));

/** Where one process's children spent their time, as bench/lib/report-spawn-gaps.mjs measured it. */
export interface SpawnGaps {
  spawns: number;
  /** Median time inside `spawn()`. */
  spawnMs: number;
  /** Median time from `spawn()` returning to the child's exit. */
  exitMs: number;
  /** Median time from one child's close to the next `spawn()`. */
  gapMs: number;
  /** Anonymous memory (MB) at every 50th spawn. */
  anonMB: number[];
}

/** Runs `node <args…>` once with the spawn timer loaded. */
export async function spawnGaps(nodeArgs: readonly string[], options: { cwd: string; scratch: string }): Promise<SpawnGaps> {
  return JSON.parse(await reportedRun(reporter, 'RHO_BENCH_GAP_FILE', nodeArgs, options)) as SpawnGaps;
}
