import { ToolError } from '../../src/host/errors.js';
import { spawn } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Figure, SuiteResult } from '../lib/figures.js';
import { median } from '../lib/stats.js';
import { Policy } from '../../src/host/policy.js';
import { ToolRegistry } from '../../src/host/registry.js';
import { ToolHost } from '../../src/host/tool-host.js';
import { Workspace } from '../../src/host/workspace.js';
import { builtinTools } from '../../src/tools/index.js';
import { findInDirectories, searchDirectories } from '../../src/tools/process/executable.js';
import { execaOptions, loadExeca, ProcessGroup, type ProcessLaunch } from '../../src/tools/process/process-group.js';
import { runToCompletion } from '../../src/tools/process/run-to-completion.js';

export interface ProcessLayerSizes {
  /** Processes run in sequence per layer and round. */
  processes: number;
  rounds: number;
}

export const processLayerSizes = {
  full: { processes: 200, rounds: 5 },
  quick: { processes: 20, rounds: 1 },
} satisfies Record<string, ProcessLayerSizes>;

/** Runs one child to its close, reading both pipes; resolves when both pipes and the child are done. */
function untilClosed(child: { stdout: NodeJS.ReadableStream | null; stderr: NodeJS.ReadableStream | null; once(event: 'exit', listener: () => void): unknown }): Promise<void> {
  return new Promise((resolve) => {
    let pending = 3;
    const done = () => {
      if (--pending === 0) resolve();
    };
    child.stdout!.on('data', () => {}).once('close', done);
    child.stderr!.on('data', () => {}).once('close', done);
    child.once('exit', done);
  });
}

/**
 * What each layer of rho's process path adds to one unconfined `exec true`, in this process, in
 * the same rounds (the order is reversed every other round): a bare `child_process.spawn` with
 * the options execa passes, execa as rho configures it, rho's process group (exit, group check,
 * pipes drained), the run to completion (bounded capture, line progress, wall limit, abort),
 * and the whole call through a ToolHost (preparation, policy, scheduling, events, deadline).
 * What a workflow run adds on top (the runner, the renderer, loading the file) is the
 * processes suite's rho figure minus the host call here.
 */
export async function processLayersSuite(sizes: ProcessLayerSizes): Promise<SuiteResult> {
  const { execa } = await loadExeca();
  // Not `rho-…`: the test suite's teardown checks for leftover `rho-*` entries.
  const root = await realpath(await mkdtemp(path.join(tmpdir(), 'rhobench-layers-')));
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const file = findInDirectories('true', searchDirectories(env.PATH));
  if (!file) throw new ToolError('not_found', 'true is not on PATH');
  const launch: ProcessLaunch = { file, args: [], cwd: root, env, stdin: undefined };
  const host = new ToolHost({
    workspace: await Workspace.create(root),
    policy: Policy.fromText({ allow: ['process(true)'] }),
    tools: new ToolRegistry(builtinTools()),
    environment: { env, secretNames: [], processEnv: { mode: 'inherit' } },
  });
  host.subscribe(() => {});
  let calls = 0;
  const options = execaOptions(launch, undefined);
  const layers: [string, () => Promise<unknown>][] = [
    ['bare child_process.spawn', () => untilClosed(spawn(file, [], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }))],
    ['execa as rho configures it', () => untilClosed(execa(file, [], options))],
    [
      'rho process group',
      async () => {
        const group = await ProcessGroup.spawn(launch);
        group.stdout.on('data', () => {});
        group.stderr.on('data', () => {});
        await group.finished;
      },
    ],
    ['run to completion', () => runToCompletion(launch, { outputLimitBytes: 1024 * 1024, wallLimitMs: 3_600_000 }, { signal: new AbortController().signal, output() {} })],
    [
      'exec call through a ToolHost',
      async () => {
        const result = await host.invoke({ id: `call-${++calls}`, tool: 'exec', args: { command: 'true' } });
        if (result.status !== 'success') throw new ToolError('execution_failed', `exec true: ${result.status} ${result.error?.message ?? ''}`);
      },
    ],
  ];
  const times = new Map(layers.map(([name]) => [name, [] as number[]]));
  try {
    for (const [, run] of layers) for (let i = 0; i < 5; i++) await run();
    for (let round = 0; round < sizes.rounds; round++) {
      for (const [name, run] of round % 2 === 0 ? layers : [...layers].reverse()) {
        const startedAt = performance.now();
        for (let i = 0; i < sizes.processes; i++) await run();
        times.get(name)!.push((performance.now() - startedAt) / sizes.processes);
      }
    }
  } finally {
    await host.dispose();
    await rm(root, { recursive: true, force: true });
  }
  const perProcess = layers.map(([name]) => ({ name, ms: median(times.get(name)!) }));
  const figures: Figure[] = perProcess.map(({ name, ms }, index) => ({
    suite: 'process layers',
    name: index === 0 ? `${name}: time per process` : `${name}: added per process`,
    value: index === 0 ? ms : ms - perProcess[index - 1]!.ms,
    unit: 'ms',
    basis: index === 0 ? `${sizes.processes} in sequence` : `${ms.toFixed(3)} ms − ${perProcess[index - 1]!.ms.toFixed(3)} ms`,
  }));
  const whole = perProcess[perProcess.length - 1]!.ms;
  const bare = perProcess[0]!.ms;
  figures.push({
    suite: 'process layers',
    name: 'exec call through a ToolHost ÷ bare spawn',
    value: whole / bare,
    unit: '×',
    basis: `${whole.toFixed(3)} ms / ${bare.toFixed(3)} ms`,
  });
  return { suite: 'process layers', figures, raw: { sizes, times: Object.fromEntries(times) }, notes: [] };
}
