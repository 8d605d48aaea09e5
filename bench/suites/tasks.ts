import path from 'node:path';
import { repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import { repoRoot } from '../lib/environment.js';
import type { Figure, SuiteResult } from '../lib/figures.js';
import { measureWithLoad, medianOf } from '../lib/hyperfine.js';
import { formatNumber } from '../lib/stats.js';
import { writeJustfile, writeTaskWorkflow } from '../lib/workflows.js';

/** `just` from npm: the platform package of `rust-just` this machine class runs (linux x64), which ships the binary itself. */
const justBin = path.join(repoRoot, 'node_modules', 'rust-just-linux-x64', 'bin', 'just');

/**
 * One named task of a file, against the same recipe run by `just` (npm `rust-just`'s linux x64 package): `build`
 * runs `true` N times in order. rho runs each as an exec step through its whole path (policy,
 * scheduling, events), unconfined like just; just runs each recipe line through `sh -c`.
 */
export async function tasksSuite(context: BenchContext): Promise<SuiteResult> {
  const steps = context.quick ? 10 : 50;
  const workflow = await writeTaskWorkflow(context.dir, steps, 'true');
  const justfile = await writeJustfile(context.dir, steps, 'true');
  const commands = [
    { name: `just build (${steps} lines)`, command: `${justBin} --justfile ${justfile} --working-directory ${context.dir} build` },
    { name: `rho run FILE build (${steps} steps)`, command: rhoCommand(`run ${workflow} build --output plain --sandbox off`) },
  ];
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 5, rounds: 3 }), cwd: context.dir });
  const just = medianOf(raw.measurements, commands[0]!.name);
  const rho = medianOf(raw.measurements, commands[1]!.name);
  const figures: Figure[] = [
    { suite: 'tasks', name: commands[0]!.name, value: just, unit: 'ms', basis: 'median wall time' },
    { suite: 'tasks', name: commands[1]!.name, value: rho, unit: 'ms', basis: 'median wall time' },
    { suite: 'tasks', name: 'rho ÷ just, one named task', value: rho / just, unit: '×', basis: `${formatNumber(rho)} ms / ${formatNumber(just)} ms` },
  ];
  return { suite: 'tasks', figures, raw, notes: [] };
}
