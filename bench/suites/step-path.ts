import { rhoBin } from '../lib/environment.js';
import type { BenchContext } from '../lib/context.js';
import type { Figure, SuiteResult } from '../lib/figures.js';
import { peakRssMB } from '../lib/peak-rss.js';
import { formatNumber } from '../lib/stats.js';
import { medianTimes } from '../lib/tiny.js';
import { writeEchoWorkflow } from '../lib/workflows.js';
import { runWorkflowCommand } from '../../src/ui/cli/run-workflow.js';

export interface StepPathSizes {
  /** Step counts: one step (the fixed cost), N and 10 × N. */
  steps: readonly [number, number, number];
  iterations: number;
  /** Peak RSS of the built CLI at the largest size; off in the CI test, which does not build. */
  measureRss: boolean;
}

export const stepPathSizes = {
  full: { steps: [1, 1_000, 10_000], iterations: 5, measureRss: true },
  quick: { steps: [1, 10, 100], iterations: 2, measureRss: true },
} satisfies Record<string, StepPathSizes>;

/** A sink that keeps only a byte count: plain output is produced in full, then dropped. */
function countingSink() {
  const sink = { bytes: 0, write: (text: string) => void (sink.bytes += text.length) };
  return sink;
}

/** One whole run as the CLI does it (load, validate, host, policy, schedule, events, plain output), without oclif. */
async function runOnce(file: string): Promise<void> {
  const stdout = countingSink();
  const signalHandlers = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  const code = await runWorkflowCommand(
    { file, inputs: [], allow: [], ask: [], deny: [], approve: [], yes: false, noInput: true, output: 'plain', labels: [], answer: [] },
    { env: {}, ci: true, stdinIsTTY: false, stdoutIsTTY: false, githubActions: false, stepSummaryFile: undefined },
    { stdout, stderr: stdout },
  );
  // The CLI keeps its signal handlers until it exits; a benchmark that runs many times in one process removes them.
  for (const [signal, before] of Object.entries(signalHandlers)) {
    for (const handler of process.listeners(signal as NodeJS.Signals)) if (!before.includes(handler)) process.off(signal, handler);
  }
  if (code !== 0) throw new Error(`${file} exited with ${code}`);
}

/**
 * The whole step path with `echo` steps (no capability, no process): per-step marginal cost
 * between N and 10 × N steps, linear growth as the ratio of the two runs' marginal costs over
 * the one-step run, and the built CLI's peak RSS at 10 × N steps.
 */
export async function stepPathSuite(context: Pick<BenchContext, 'dir'>, sizes: StepPathSizes): Promise<SuiteResult> {
  const [one, few, many] = sizes.steps;
  const files = { [one]: await writeEchoWorkflow(context.dir, one), [few]: await writeEchoWorkflow(context.dir, few), [many]: await writeEchoWorkflow(context.dir, many) };
  const times = await medianTimes(Object.fromEntries(sizes.steps.map((count) => [`${count} steps`, () => runOnce(files[count]!)])), sizes.iterations);
  const [base, small, large] = sizes.steps.map((count) => times[`${count} steps`]!) as [number, number, number];
  const figures: Figure[] = [
    {
      suite: 'step path',
      name: `marginal cost per echo step (${few} → ${many})`,
      value: ((large - small) / (many - few)) * 1000,
      unit: 'µs',
      basis: `(${formatNumber(large)} − ${formatNumber(small)}) ms / ${many - few} steps`,
      target: { limit: 100, text: '≤ 100 µs' },
    },
    {
      suite: 'step path',
      name: `growth: cost of ${many} steps ÷ cost of ${few} (beyond one step)`,
      value: (large - base) / (small - base),
      unit: '×',
      basis: `(${formatNumber(large)} − ${formatNumber(base)}) ms / (${formatNumber(small)} − ${formatNumber(base)}) ms`,
      target: { limit: 11, text: '≤ 11' },
    },
  ];
  const rss: Record<string, number> = {};
  if (sizes.measureRss) {
    for (const count of [one, many]) {
      rss[`${count} steps`] = await peakRssMB([rhoBin, 'run', files[count]!, '--output', 'plain'], { cwd: context.dir, scratch: context.dir });
    }
    figures.push({
      suite: 'step path',
      name: `peak RSS of rho run with ${many} echo steps`,
      value: rss[`${many} steps`]!,
      unit: 'MB',
      basis: `one step: ${formatNumber(rss[`${one} steps`]!)} MB`,
      target: { limit: 200, text: '≤ 200 MB' },
    });
  }
  return { suite: 'step path', figures, raw: { sizes, medianMs: times, peakRssMB: rss }, notes: [] };
}
