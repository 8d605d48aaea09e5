import { fileURLToPath } from 'node:url';
import { reportedRun } from './reported-run.js';

const reporter = fileURLToPath(new URL('./report-peak-rss.mjs', import.meta.url));

/**
 * Runs `node <args…>` once and returns the process's peak RSS in MB (10⁶ bytes; its own, not its
 * children's). Output goes through a pipe that is read and dropped, as a log collector would.
 */
export async function peakRssMB(nodeArgs: readonly string[], options: { cwd: string; scratch: string }): Promise<number> {
  return (Number(await reportedRun(reporter, 'RHO_BENCH_RSS_FILE', nodeArgs, options)) * 1024) / 1e6;
}
