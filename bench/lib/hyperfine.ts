import { ToolError } from '../../src/host/errors.js';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchEnv, currentLoad } from './environment.js';
import { median } from './stats.js';

/** One command line for hyperfine, run without a shell (`-N`): write `bash -c '…'` when a shell is needed. */
export interface Command {
  name: string;
  command: string;
}

export interface MeasureOptions {
  /** Runs of each command per round. */
  runs: number;
  /** Rounds; the order of the commands is reversed every other round so drift in load hits all alike. */
  rounds: number;
  warmup: number;
  /** `pipe` when output size matters (hyperfine reads it through a pipe), `null` otherwise. */
  output?: 'null' | 'pipe';
  /** A command run before every timed run, untimed (clearing what the last run left, such as its logs). */
  prepare?: string;
  cwd: string;
}

export interface Measurement {
  name: string;
  command: string;
  /** Every run's wall time, in milliseconds. */
  times: number[];
  medianMs: number;
}

/** Whether hyperfine can be run; installs it with apt-get when missing and allowed to. */
export function ensureHyperfine(log: (line: string) => void): boolean {
  if (hasHyperfine()) return true;
  const root = process.getuid?.() === 0;
  const apt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (root && apt) {
    log('hyperfine is missing: installing the Debian package (apt-get install -y hyperfine)');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const install = () => spawnSync('apt-get', ['install', '-y', '-qq', 'hyperfine'], { stdio: 'inherit', env }).status === 0;
    if (!install()) {
      spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
      install();
    }
    if (hasHyperfine()) return true;
  }
  log(
    'hyperfine is missing and could not be installed here. Install it, then run npm run bench again:\n' +
      '  Debian/Ubuntu: sudo apt-get install hyperfine\n' +
      '  elsewhere:     see https://github.com/sharkdp/hyperfine#installation (cargo install hyperfine works everywhere)',
  );
  return false;
}

function hasHyperfine(): boolean {
  return spawnSync('hyperfine', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Runs each command once more to name the ones that fail, with the end of their output. */
function diagnose(commands: readonly Command[], cwd: string): string {
  const failures = commands.flatMap((command) => {
    const run = spawnSync('bash', ['-c', command.command], { cwd, env: benchEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (run.status === 0) return [];
    const output = `${run.stdout ?? ''}${run.stderr ?? ''}`.split('\n').slice(-15).join('\n');
    return [`${command.name} exited with ${run.status} (${command.command}):\n${output}`];
  });
  return failures.length > 0 ? failures.join('\n\n') : 'every command succeeded when run again: the failure was intermittent';
}

interface HyperfineJson {
  results: { command: string; times: number[] }[];
}

/** Runs every command `rounds × runs` times through hyperfine and returns each one's wall times. */
export async function measure(commands: readonly Command[], options: MeasureOptions): Promise<Measurement[]> {
  const times = new Map(commands.map((command) => [command.name, [] as number[]]));
  const dir = await mkdtemp(path.join(tmpdir(), 'rhobench-hf-'));
  try {
    for (let round = 0; round < options.rounds; round++) {
      const ordered = round % 2 === 0 ? commands : [...commands].reverse();
      const file = path.join(dir, `round-${round}.json`);
      const args = ['-N', '--style', 'none', '--warmup', String(options.warmup), '--runs', String(options.runs), '--export-json', file];
      if (options.output) args.push('--output', options.output);
      if (options.prepare) args.push('--prepare', options.prepare);
      for (const command of ordered) args.push('-n', command.name, command.command);
      const run = spawnSync('hyperfine', args, { cwd: options.cwd, env: benchEnv(), encoding: 'utf8' });
      if (run.status !== 0) throw new ToolError('execution_failed', `hyperfine failed (exit ${run.status}): ${run.stderr.trim()}\n${diagnose(ordered, options.cwd)}`);
      const parsed = JSON.parse(await readFile(file, 'utf8')) as HyperfineJson;
      for (const result of parsed.results) times.get(result.command)!.push(...result.times.map((seconds) => seconds * 1000));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return commands.map((command) => {
    const all = times.get(command.name)!;
    return { name: command.name, command: command.command, times: all, medianMs: median(all) };
  });
}

/** Raw record of one measured group, with the load before and after. */
export async function measureWithLoad(commands: readonly Command[], options: MeasureOptions) {
  const loadBefore = currentLoad();
  const measurements = await measure(commands, options);
  return { loadBefore, loadAfter: currentLoad(), options: { ...options, cwd: undefined }, measurements };
}

/** The median of the measurement named `name`. */
export function medianOf(measurements: readonly Measurement[], name: string): number {
  const found = measurements.find((measurement) => measurement.name === name);
  if (!found) throw new ToolError('internal', `no measurement named ${name}`);
  return found.medianMs;
}
