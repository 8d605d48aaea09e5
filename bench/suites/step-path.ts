import { ToolError } from '../../src/host/errors.js';
import { rhoBin } from '../lib/environment.js';
import type { BenchContext } from '../lib/context.js';
import type { Figure, SuiteResult } from '../lib/figures.js';
import { peakRssMB } from '../lib/peak-rss.js';
import { formatNumber } from '../lib/stats.js';
import { medianTimes } from '../lib/tiny.js';
import { writeEchoWorkflow } from '../lib/workflows.js';
import { runWorkflowCommand } from '../../src/cli/run-workflow.js';
import { runSettingsOf } from '../../src/cli/run-settings.js';
import { openWorkflow } from '../../src/workflow/launch.js';
import { parseRunChoices } from '../../src/workflow/run-choices.js';

export interface StepPathSizes {
  /** Step counts: one step (the fixed cost), N and 10 × N. */
  steps: readonly [number, number, number];
  iterations: number;
  /** Peak RSS of the built CLI at the largest size; off in the CI test, which does not build. */
  measureRss: boolean;
}

export const stepPathSizes = {
  full: { steps: [1, 1_000, 10_000], iterations: 10, measureRss: true },
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
  const environment = { env: {}, ci: true, stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false, githubActions: false, stepSummaryFile: undefined };
  const code = await runWorkflowCommand(runSettingsOf('run', { output: 'plain', 'no-logs': true }, { file }, environment), { stdout, stderr: stdout });
  // The CLI keeps its signal handlers until it exits; a benchmark that runs many times in one process removes them.
  for (const [signal, before] of Object.entries(signalHandlers)) {
    for (const handler of process.listeners(signal as NodeJS.Signals)) if (!before.includes(handler)) process.off(signal, handler);
  }
  if (code !== 0) throw new ToolError('execution_failed', `${file} exited with ${code}`);
}

/** What a run does before its first step: load and validate the file (YAML, schema, expressions) and build the host. */
async function openOnce(file: string): Promise<void> {
  const opened = await openWorkflow({ file, cwd: process.cwd(), choices: parseRunChoices({}), ports: { hostEnv: {} } }, 'import');
  await opened.host.dispose();
}

/**
 * The step path with `echo` steps (no capability, no process). Two views, each as a marginal
 * cost per step between N and 10 × N steps and as growth (the cost of 10 × N steps beyond the
 * one-step run ÷ that of N steps, ≤ 11 when linear):
 * - the run: prepare, policy, gates, scheduling, events and plain output — the whole run
 *   (file to exit code, as the CLI does it without oclif) minus opening the workflow, both
 *   measured in the same tinybench run; the targets apply to this view;
 * - the whole path including loading the file (YAML with positions, schema, expressions).
 * Peak RSS is the built CLI's, at 10 × N steps.
 */
export async function stepPathSuite(context: Pick<BenchContext, 'dir'>, sizes: StepPathSizes): Promise<SuiteResult> {
  const [one, few, many] = sizes.steps;
  const files = Object.fromEntries(await Promise.all(sizes.steps.map(async (count) => [count, await writeEchoWorkflow(context.dir, count)] as const)));
  const times = await medianTimes(
    Object.fromEntries(
      sizes.steps.flatMap((count) => [
        [`whole ${count}`, () => runOnce(files[count]!)],
        [`open ${count}`, () => openOnce(files[count]!)],
      ]),
    ),
    sizes.iterations,
  );
  const whole = (count: number) => times[`whole ${count}`]!;
  const run = (count: number) => whole(count) - times[`open ${count}`]!;
  const figures: Figure[] = [];
  for (const [view, cost, target] of [
    ['run (prepare → plain output)', run, true],
    ['whole path incl. loading the file', whole, false],
  ] as const) {
    const [base, small, large] = [cost(one), cost(few), cost(many)];
    figures.push(
      {
        suite: 'step path',
        name: `${view}: marginal cost per echo step (${few} → ${many})`,
        value: ((large - small) / (many - few)) * 1000,
        unit: 'µs',
        basis: `(${formatNumber(large)} − ${formatNumber(small)}) ms / ${many - few} steps`,
        ...(target && { target: { limit: 100, text: '≤ 100 µs' } }),
      },
      {
        suite: 'step path',
        name: `${view}: growth, ${many} steps ÷ ${few} (beyond one step)`,
        value: (large - base) / (small - base),
        unit: '×',
        basis: `(${formatNumber(large)} − ${formatNumber(base)}) ms / (${formatNumber(small)} − ${formatNumber(base)}) ms`,
        ...(target && { target: { limit: 11, text: '≤ 11' } }),
      },
    );
  }
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
