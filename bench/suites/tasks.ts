import path from 'node:path';
import { repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import { repoRoot } from '../lib/environment.js';
import type { Figure, SuiteResult } from '../lib/figures.js';
import { measureWithLoad, medianOf, type Command } from '../lib/hyperfine.js';
import { formatNumber } from '../lib/stats.js';
import { writeJustfile, writeNodeLoop, writeTaskWorkflow } from '../lib/workflows.js';

/** `just` from npm: the platform package of `rust-just` this machine class runs (linux x64), which ships the binary itself. */
const justBin = path.join(repoRoot, 'node_modules', 'rust-just-linux-x64', 'bin', 'just');

/**
 * One named task of a file, against the same recipe run by `just` (npm `rust-just`'s linux x64
 * package): `build` runs `true` N times in order, for N = 1, 10 and 50. rho runs each as an exec
 * step through its whole path (policy, scheduling, events), unconfined like just
 * (`--sandbox off`); just runs each recipe line through `sh -c`. Beside them, at the largest
 * size: a plain Node loop running the same processes (what any Node runner pays at least), and
 * rho as a user runs it by default, which confines every step when bubblewrap works.
 */
export async function tasksSuite(context: BenchContext): Promise<SuiteResult> {
  const sizes = context.quick ? [1, 10] : [1, 10, 50];
  const largest = sizes[sizes.length - 1]!;
  const justName = (steps: number) => `just build (${steps} line${steps === 1 ? '' : 's'})`;
  const rhoName = (steps: number) => `rho run FILE build --sandbox off (${steps} step${steps === 1 ? '' : 's'})`;
  const nodeName = `node child_process loop (${largest} processes)`;
  const defaultName = `rho run FILE build, default sandbox (${largest} steps)`;
  const commands: Command[] = [];
  let largestWorkflow = '';
  for (const steps of sizes) {
    const workflow = await writeTaskWorkflow(context.dir, steps, 'true');
    const justfile = await writeJustfile(context.dir, steps, 'true');
    largestWorkflow = workflow;
    commands.push(
      { name: justName(steps), command: `${justBin} --justfile ${justfile} --working-directory ${context.dir} build` },
      { name: rhoName(steps), command: rhoCommand(`run ${workflow} build --output plain --sandbox off`) },
    );
  }
  commands.push(
    { name: nodeName, command: `node ${await writeNodeLoop(context.dir, 'true', largest, 'true')}` },
    { name: defaultName, command: rhoCommand(`run ${largestWorkflow} build --output plain`) },
  );
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 5, rounds: 3 }), cwd: context.dir });
  const median = (name: string) => medianOf(raw.measurements, name);
  const figures: Figure[] = [];
  for (const steps of sizes) {
    const just = median(justName(steps));
    const rho = median(rhoName(steps));
    figures.push({
      suite: 'tasks',
      name: `rho ÷ just, one named task of ${steps} exec true step${steps === 1 ? '' : 's'} (unconfined)`,
      value: rho / just,
      unit: '×',
      basis: `${formatNumber(rho)} ms / ${formatNumber(just)} ms`,
    });
  }
  const just = median(justName(largest));
  const nodeLoop = median(nodeName);
  const confined = median(defaultName);
  const unconfined = median(rhoName(largest));
  figures.push(
    {
      suite: 'tasks',
      name: `plain Node loop of ${largest} processes ÷ just (the floor of any Node runner)`,
      value: nodeLoop / just,
      unit: '×',
      basis: `${formatNumber(nodeLoop)} ms / ${formatNumber(just)} ms`,
    },
    {
      suite: 'tasks',
      name: `rho ÷ just, ${largest} steps, default sandbox (confined when bubblewrap works)`,
      value: confined / just,
      unit: '×',
      basis: `${formatNumber(confined)} ms / ${formatNumber(just)} ms (unconfined: ${formatNumber(unconfined)} ms)`,
    },
  );
  return { suite: 'tasks', figures, raw, notes: [] };
}
