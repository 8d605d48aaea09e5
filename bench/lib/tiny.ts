import { ToolError } from '../../src/host/errors.js';
import { Bench } from 'tinybench';

/**
 * Median wall time (ms) of each task, measured by tinybench with a fixed count of iterations
 * (a task here is a whole workload, from hundreds of microseconds to seconds).
 */
export async function medianTimes(tasks: Record<string, () => unknown>, iterations: number): Promise<Record<string, number>> {
  const bench = new Bench({ iterations, time: 0, warmupIterations: 1, warmupTime: 0, throws: true });
  for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn);
  await bench.run();
  const medians: Record<string, number> = {};
  for (const task of bench.tasks) {
    const result = task.result;
    if (result.state !== 'completed') throw new ToolError('execution_failed', `benchmark ${task.name} did not complete (${result.state})`);
    medians[task.name] = result.latency.p50;
  }
  return medians;
}
