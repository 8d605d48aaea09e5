/**
 * `npm run bench` runs every benchmark and writes bench/results/{full,quick}.{md,json}.
 * `npm run bench -- --quick` (or BENCH_QUICK=1): small sizes, few runs, targets not enforced.
 * `--only start-up,policy` runs some suites; `--help` prints the usage. See bench/README.md.
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HostError } from '../src/host/errors.js';
import { exitCodeOfError, exitCodes } from '../src/host/exit-codes.js';
import { benchUsage, benchUsageHint, parseBenchArguments, type BenchRequest } from './lib/arguments.js';
import type { BenchContext } from './lib/context.js';
import { currentLoad, repoRoot } from './lib/environment.js';
import { markdownTable, verdict, type SuiteResult } from './lib/figures.js';
import { ensureHyperfine } from './lib/hyperfine.js';
import { incrementalSuite } from './suites/incremental.js';
import { mcpSuite } from './suites/mcp.js';
import { outputSuite } from './suites/output.js';
import { parallelSuite } from './suites/parallel.js';
import { policySizes, policySuite } from './suites/policy.js';
import { processLayerSizes, processLayersSuite } from './suites/process-layers.js';
import { processesSuite } from './suites/processes.js';
import { sandboxSuite } from './suites/sandbox.js';
import { schedulerSizes, schedulerSuite } from './suites/scheduler.js';
import { scriptsSuite } from './suites/scripts.js';
import { sharedCacheSuite } from './suites/shared-cache.js';
import { startupSuite } from './suites/startup.js';
import { stepGapsSuite } from './suites/step-gaps.js';
import { stepPathSizes, stepPathSuite } from './suites/step-path.js';
import { tasksSuite } from './suites/tasks.js';
import { toolchainSuite } from './suites/toolchain.js';
import { treesSuite } from './suites/trees.js';

interface Suite {
  name: string;
  /** Runs whole processes through hyperfine. */
  wholeProcess: boolean;
  run(context: BenchContext): Promise<SuiteResult>;
}

const mode = (context: BenchContext) => (context.quick ? 'quick' : 'full');

const suites: Suite[] = [
  { name: 'policy', wholeProcess: false, run: (context) => policySuite(policySizes[mode(context)]) },
  { name: 'scheduler', wholeProcess: false, run: (context) => schedulerSuite(schedulerSizes[mode(context)]) },
  { name: 'step path', wholeProcess: false, run: (context) => stepPathSuite(context, stepPathSizes[mode(context)]) },
  { name: 'start-up', wholeProcess: true, run: startupSuite },
  { name: 'processes', wholeProcess: true, run: processesSuite },
  { name: 'step gaps', wholeProcess: true, run: stepGapsSuite },
  { name: 'process layers', wholeProcess: false, run: (context) => processLayersSuite(processLayerSizes[mode(context)]) },
  { name: 'sandbox', wholeProcess: true, run: sandboxSuite },
  { name: 'parallel', wholeProcess: true, run: parallelSuite },
  { name: 'output', wholeProcess: true, run: outputSuite },
  { name: 'mcp', wholeProcess: true, run: mcpSuite },
  { name: 'tasks', wholeProcess: true, run: tasksSuite },
  { name: 'toolchain', wholeProcess: true, run: toolchainSuite },
  { name: 'scripts', wholeProcess: true, run: scriptsSuite },
  { name: 'incremental', wholeProcess: true, run: incrementalSuite },
  { name: 'shared cache', wholeProcess: true, run: sharedCacheSuite },
  { name: 'trees', wholeProcess: true, run: treesSuite },
];

function machine() {
  const uptime = spawnSync('uptime', { encoding: 'utf8' }).stdout?.trim();
  return { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', uptime };
}

async function main(): Promise<number> {
  const suiteNames = suites.map((suite) => suite.name);
  let request: BenchRequest;
  try {
    request = parseBenchArguments(process.argv.slice(2), suiteNames, process.env);
  } catch (error) {
    if (!(error instanceof HostError)) throw error;
    process.stderr.write(`bench: ${error.message}\n${benchUsageHint}\n`);
    return exitCodeOfError(error);
  }
  if (request.kind === 'help') {
    process.stdout.write(benchUsage(suiteNames));
    return exitCodes.success;
  }
  const { quick, only } = request;
  // Every process measured here starts without it (see lib/environment.ts).
  delete process.env.NODE_EXTRA_CA_CERTS;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const selected = suites.filter((suite) => !only || only.includes(suite.name));
  const canRunProcesses = !selected.some((suite) => suite.wholeProcess) || ensureHyperfine(log);
  // Not `rho-…`: the test suite's teardown removes new `rho-*` temp entries, and a bench may run beside it.
  const dir = await mkdtemp(path.join(tmpdir(), 'rhobench-'));
  // An empty home for every measured process: a user's shell start-up files are not what is measured
  // (bash sources ~/.bashrc when its stdin is a socket, as it is for commands zx starts).
  const home = path.join(dir, 'home');
  await mkdir(home);
  process.env.HOME = home;
  const context: BenchContext = { quick, dir, log };
  const results: SuiteResult[] = [];
  const skipped: string[] = [];
  const startedAt = new Date();
  const loadBefore = currentLoad();
  try {
    for (const suite of selected) {
      if (suite.wholeProcess && !canRunProcesses) {
        skipped.push(suite.name);
        continue;
      }
      log(`bench: ${suite.name} (${quick ? 'quick' : 'full'}; load ${currentLoad().join(' ')})`);
      results.push(await suite.run(context));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const header = {
    mode: quick ? 'quick' : 'full',
    date: startedAt.toISOString(),
    machine: machine(),
    loadBefore,
    loadAfter: currentLoad(),
    skipped,
  };
  const table = markdownTable(results, { enforce: !quick });
  const heading = [
    `# rho bench (${header.mode}), ${header.date}`,
    '',
    `Node ${header.machine.node}, ${header.machine.cpus} × ${header.machine.cpuModel}; load average before ${loadBefore.join(' ')}, after ${header.loadAfter.join(' ')}.`,
    'Medians; every figure is a ratio to a floor or a peer measured in the same run, or a marginal cost.',
    '',
  ].join('\n');
  const resultsDir = path.join(repoRoot, 'bench', 'results');
  // A run of some suites does not replace the record of a run of all of them.
  const name = only ? `${header.mode}-partial` : header.mode;
  await mkdir(resultsDir, { recursive: true });
  await writeFile(path.join(resultsDir, `${name}.md`), `${heading}\n${table}`);
  await writeFile(path.join(resultsDir, `${name}.json`), `${JSON.stringify({ ...header, only, results }, null, 2)}\n`);
  process.stdout.write(`${heading}\n${table}`);
  log(`bench: wrote bench/results/${name}.md and .json`);
  if (skipped.length > 0) {
    log(`bench: skipped ${skipped.join(', ')} (hyperfine missing, see above)`);
    return exitCodes.failure;
  }
  const missed = results.flatMap((result) => result.figures).filter((figure) => verdict(figure) === 'missed');
  if (missed.length > 0 && !quick) {
    log(`bench: ${missed.length} target(s) missed:\n${missed.map((figure) => `  ${figure.suite}: ${figure.name}`).join('\n')}`);
    return exitCodes.failure;
  }
  return exitCodes.success;
}

process.exitCode = await main();
