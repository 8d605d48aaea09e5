import { spawnSync } from 'node:child_process';
import { repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import type { Figure, SuiteResult } from '../lib/figures.js';
import { measureWithLoad, medianOf, type Command } from '../lib/hyperfine.js';
import { formatNumber } from '../lib/stats.js';
import { writeExecWorkflow, writeMakefile } from '../lib/workflows.js';

function hasGnuParallel(): boolean {
  const probe = spawnSync('parallel', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stdout.includes('GNU parallel');
}

/**
 * Parallelism: `count` × `sleep seconds` with `count` slots. Parallel efficiency is ideal wall
 * (one sleep) ÷ actual wall; rho's target subtracts its own start-up for a one-step process
 * workflow (one `exec true`: the CLI, the process tool's first load, one spawn), measured in
 * the same rounds, because a Node CLI cannot start in the 3 ms make needs.
 */
const oneStep = 'rho run (one exec true step)';

export async function parallelSuite(context: BenchContext): Promise<SuiteResult> {
  const count = context.quick ? 4 : 16;
  const seconds = context.quick ? 0.2 : 0.5;
  const idealMs = seconds * 1000;
  const notes: string[] = [];
  const label = `${count} × sleep ${seconds}`;
  const commands: Command[] = [
    { name: `make -j${count}`, command: `make -s -j${count} -f ${await writeMakefile(context.dir, 'sleep', count, `sleep ${seconds}`)}` },
    { name: `xargs -P${count}`, command: `bash -c 'seq ${count} | xargs -P${count} -I{} sleep ${seconds}'` },
    {
      name: `rho -j ${count}`,
      command: rhoCommand(`run ${await writeExecWorkflow(context.dir, 'sleep', count, 'sleep', [String(seconds)])} -j ${count} --output plain --sandbox off`),
    },
    { name: oneStep, command: rhoCommand(`run ${await writeExecWorkflow(context.dir, 'true', 1, 'true', [])} --output plain --sandbox off`) },
  ];
  if (hasGnuParallel()) {
    commands.push({ name: `GNU parallel -j${count}`, command: `bash -c 'seq ${count} | parallel -j${count} sleep ${seconds}'` });
  } else {
    notes.push('GNU parallel is not installed, so it is left out (apt-get install parallel adds it).');
  }
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 4, rounds: 3 }), cwd: context.dir });
  const peers = commands.filter((command) => command.name !== oneStep);
  const figures: Figure[] = peers.map(({ name }) => ({
    suite: 'parallel',
    name: `${name}: parallel efficiency (ideal ÷ actual wall), ${label}`,
    value: idealMs / medianOf(raw.measurements, name),
    unit: '',
    basis: `${formatNumber(idealMs)} ms / ${formatNumber(medianOf(raw.measurements, name))} ms`,
  }));
  const rhoWall = medianOf(raw.measurements, `rho -j ${count}`);
  const startup = medianOf(raw.measurements, oneStep);
  figures.push({
    suite: 'parallel',
    name: `rho -j ${count}: (wall − one-step start-up) ÷ ideal`,
    value: (rhoWall - startup) / idealMs,
    unit: '×',
    basis: `(${formatNumber(rhoWall)} − ${formatNumber(startup)}) ms / ${formatNumber(idealMs)} ms`,
    target: { limit: 1.1, text: '≤ 1.1' },
  });
  return { suite: 'parallel', figures, raw, notes };
}
