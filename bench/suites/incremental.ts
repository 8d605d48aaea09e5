import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import type { SuiteResult } from '../lib/figures.js';
import { measureWithLoad, medianOf } from '../lib/hyperfine.js';
import { formatNumber } from '../lib/stats.js';
import { writeEchoWorkflow } from '../lib/workflows.js';

/** Steps of the up-to-date workflow (and targets of its Makefile). */
export const incrementalSteps = 200;

const range = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

/**
 * The same build as a workflow and as a Makefile: each step copies src/N.txt to out/N.txt,
 * declaring the one as its source and the other as what it generates.
 */
async function writeBuild(dir: string, count: number): Promise<{ workflow: string; skipped: string; makefile: string }> {
  await mkdir(path.join(dir, 'src'), { recursive: true });
  await mkdir(path.join(dir, 'out'), { recursive: true });
  for (const index of range(count)) await writeFile(path.join(dir, 'src', `${index}.txt`), `source ${index}\n`);
  const steps = range(count).map(
    (index) =>
      `  - id: s${index}\n    tool: exec\n    with: { command: cp, args: ["src/${index}.txt", "out/${index}.txt"] }\n    sources: ["src/${index}.txt"]\n    generates: ["out/${index}.txt"]\n`,
  );
  const allow = ['read(src/**)', 'read(out/**)', 'process(cp)'].map((rule) => JSON.stringify(rule)).join(', ');
  const workflow = path.join(dir, 'build.yml');
  const text = `version: 1\nname: build-${count}\npolicy:\n  allow: [${allow}]\nsteps:\n${steps.join('')}`;
  await writeFile(workflow, text);
  // The same file with every step skipped by `if: false`: loading and reporting 200 such steps, no check.
  const skipped = path.join(dir, 'build-skipped.yml');
  await writeFile(skipped, text.replaceAll('    sources:', '    if: false\n    sources:'));
  const makefile = path.join(dir, 'build.mk');
  const targets = range(count).map((index) => `out/${index}.txt`);
  const rules = range(count)
    .map((index) => `out/${index}.txt: src/${index}.txt\n\t@cp $< $@\n`)
    .join('');
  await writeFile(makefile, `all: ${targets.join(' ')}\n${rules}`);
  return { workflow, skipped, makefile };
}

/**
 * A no-op rerun of a 200-step workflow whose steps are all up to date, against its first run
 * (no recorded state), `make` on the same tree when it is up to date, and `rho run` of one echo
 * step: what checking costs next to doing the work, and next to make's timestamps. The same
 * rerun with the workflow cache off shows what parsing the file costs when its text is new.
 */
export async function incrementalSuite(context: BenchContext): Promise<SuiteResult> {
  const dir = path.join(context.dir, 'incremental');
  const { workflow, skipped, makefile } = await writeBuild(dir, incrementalSteps);
  const oneEcho = await writeEchoWorkflow(context.dir, 1);
  const noOp = `rho run (${incrementalSteps} steps, all up to date)`;
  const first = `rho run (${incrementalSteps} steps, first run)`;
  const make = `make (${incrementalSteps} targets, up to date)`;
  const echo = 'rho run (one echo step)';
  const floor = `rho run (the same ${incrementalSteps} steps, skipped by if:)`;
  const uncached = `rho run (${incrementalSteps} steps, all up to date, workflow cache off)`;
  // The up-to-date state lives in rho's state directory: one of the bench's own, so a first run can clear it.
  const state = path.join(dir, '.state');
  const withState = (args: string) => `env XDG_STATE_HOME=${state} ${rhoCommand(args)}`;
  const commands = [
    // The warm-up runs record the state, so every measured run of this command finds it.
    { name: noOp, command: withState(`run ${workflow} --output plain --sandbox off`) },
    { name: first, command: `bash -c ${JSON.stringify(`rm -rf ${path.join(state, 'rho', 'workspaces')} && ${withState(`run ${workflow} --output plain --sandbox off`)}`)}` },
    { name: make, command: `make -s -f ${makefile}` },
    { name: echo, command: rhoCommand(`run ${oneEcho} --output plain`) },
    { name: floor, command: withState(`run ${skipped} --output plain --sandbox off`) },
    // What the rerun pays when the file's text is new to the cache (edited since, or cache off): yaml parses it.
    { name: uncached, command: `env RHO_NO_WORKFLOW_CACHE=1 ${withState(`run ${workflow} --output plain --sandbox off`)}` },
  ];
  // Each first run removes the state and records it again, so a no-op rerun after it still finds it.
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 5, rounds: 2 }), cwd: dir });
  const median = (name: string) => medianOf(raw.measurements, name);
  const versus = (a: string, b: string, target?: { limit: number; text: string }) => ({
    suite: 'incremental',
    name: `${a} ÷ ${b}`,
    value: median(a) / median(b),
    unit: '×',
    basis: `${formatNumber(median(a))} ms / ${formatNumber(median(b))} ms`,
    ...(target && { target }),
  });
  return {
    suite: 'incremental',
    // The floor says how much of the no-op rerun is the workflow's size rather than its checks.
    figures: [
      versus(noOp, echo, { limit: 2, text: '≤ 2' }),
      versus(noOp, floor),
      versus(floor, echo),
      versus(uncached, echo),
      versus(uncached, noOp),
      versus(first, noOp),
      versus(noOp, make),
    ],
    raw,
    notes: [],
  };
}
