import { fileURLToPath } from 'node:url';
import { reportedRun } from './reported-run.js';

const reporter = fileURLToPath(new URL('./report-step-garbage.mjs', import.meta.url));

/** What one process allocated and how many promises it created per child, as bench/lib/report-step-garbage.mjs counted them. */
export interface StepGarbage {
  spawns: number;
  /** KB allocated per child started (after the first 20), collected or not. */
  allocatedKB: number | null;
  promises: number | null;
}

/** Runs `node <args…>` once with the garbage counter loaded. */
export async function stepGarbage(nodeArgs: readonly string[], options: { cwd: string; scratch: string }): Promise<StepGarbage> {
  return JSON.parse(await reportedRun(reporter, 'RHO_BENCH_GARBAGE_FILE', nodeArgs, options)) as StepGarbage;
}
