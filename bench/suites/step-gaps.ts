import type { BenchContext } from '../lib/context.js';
import { currentLoad, rhoBin as rho } from '../lib/environment.js';
import type { Figure, SuiteResult } from '../lib/figures.js';
import { spawnGaps, type SpawnGaps } from '../lib/spawn-gaps.js';
import { median } from '../lib/stats.js';
import { stepGarbage } from '../lib/step-garbage.js';
import { writeExecaSpawnLoop, writeExecWorkflow, writeNodeSpawnLoop } from '../lib/workflows.js';

/**
 * Where a sequential process step's time goes, timed inside the process around
 * `ChildProcess.prototype.spawn` (bench/lib/report-spawn-gaps.mjs): the parent's own work from
 * one child's close to the next `spawn()`, the `spawn()` call itself (libuv forks, so it grows
 * with the parent's memory) and the anonymous memory at fork time, for rho's unconfined
 * `exec true` steps under each renderer, for a bare Node loop reading both pipes and for the same
 * loop starting each child through execa as rho configures it. Then, in a run of their own (the
 * counters slow it down), what each of those allocates and how many promises it creates per
 * child: counts that a loaded machine does not change (bench/lib/report-step-garbage.mjs).
 */
export async function stepGapsSuite(context: BenchContext): Promise<SuiteResult> {
  const steps = context.quick ? 50 : 200;
  const runs = context.quick ? 1 : 3;
  const workflow = await writeExecWorkflow(context.dir, 'gaps', steps, 'true', []);
  const loop = await writeNodeSpawnLoop(context.dir, 'gaps', steps, 'true');
  const execaLoop = await writeExecaSpawnLoop(context.dir, 'gaps', steps, 'true');
  const subjects: [string, string[]][] = [
    ['node spawn loop (pipes read)', [loop]],
    ['node loop through execa as rho configures it', [execaLoop]],
    ['rho --output plain', [rho, 'run', workflow, '-j', '1', '--sandbox', 'off', '--output', 'plain']],
    ['rho --output json', [rho, 'run', workflow, '-j', '1', '--sandbox', 'off', '--output', 'json']],
    ['rho (default renderer, not a TTY)', [rho, 'run', workflow, '-j', '1', '--sandbox', 'off']],
  ];
  const loadBefore = currentLoad();
  const samples = new Map<string, SpawnGaps[]>(subjects.map(([name]) => [name, []]));
  for (let run = 0; run < runs; run++) {
    for (const [name, args] of run % 2 === 0 ? subjects : [...subjects].reverse()) {
      samples.get(name)!.push(await spawnGaps(args, { cwd: context.dir, scratch: context.dir }));
    }
  }
  const of = (name: string, pick: (gaps: SpawnGaps) => number) => median(samples.get(name)!.map(pick));
  const figures: Figure[] = [];
  for (const [name] of subjects) {
    const isRho = name.startsWith('rho');
    figures.push(
      {
        suite: 'step gaps',
        name: `${name}: one child's close to the next spawn()`,
        value: of(name, (gaps) => gaps.gapMs),
        unit: 'ms',
        basis: `median over ${steps} sequential processes, median of ${runs} runs`,
        ...(isRho && { target: { limit: 0.3, text: '≤ 0.3 ms' } }),
      },
      { suite: 'step gaps', name: `${name}: spawn() itself`, value: of(name, (gaps) => gaps.spawnMs), unit: 'ms', basis: 'libuv forks and execs' },
      {
        suite: 'step gaps',
        name: `${name}: anonymous memory at the last spawn`,
        value: of(name, (gaps) => gaps.anonMB.at(-1) ?? 0),
        unit: 'MB',
        basis: `at spawns ${samples
          .get(name)![0]!
          .anonMB.map((_, index) => (index + 1) * 50)
          .join(', ')}: ${samples
          .get(name)![0]!
          .anonMB.map((mb) => mb.toFixed(0))
          .join(', ')} MB (first run)`,
      },
    );
  }
  const garbage: Record<string, unknown> = {};
  for (const [name, args] of subjects.slice(0, 3)) {
    const counted = await stepGarbage(args, { cwd: context.dir, scratch: context.dir });
    garbage[name] = counted;
    const basis = `per child after the first 20 of ${counted.spawns}, one run`;
    if (counted.allocatedKB !== null)
      figures.push({ suite: 'step gaps', name: `${name}: allocated per process`, value: counted.allocatedKB, unit: 'KB', basis: `${basis}, collected objects included` });
    if (counted.promises !== null) figures.push({ suite: 'step gaps', name: `${name}: promises per process`, value: counted.promises, unit: '', basis });
  }
  return { suite: 'step gaps', figures, raw: { steps, runs, loadBefore, loadAfter: currentLoad(), samples: Object.fromEntries(samples), garbage }, notes: [] };
}
