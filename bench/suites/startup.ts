import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { concurrentlyBin, repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import type { SuiteResult } from '../lib/figures.js';
import { measureWithLoad, medianOf } from '../lib/hyperfine.js';
import { writeLibraryFloor } from '../lib/library-floor.js';
import { npmCliScript, writeScriptsPackage } from '../lib/package-scripts.js';
import { formatNumber } from '../lib/stats.js';
import { writeEchoWorkflow, writeMakefile, writeScriptTasksWorkflow, writeZxScript } from '../lib/workflows.js';

/**
 * Start-up: the whole process for the smallest useful thing, as a ratio to `node -e 0` measured
 * in the same rounds. Peers run one `true`. rho's compile cache lives in the bench's home and is
 * filled by the warm-up runs; the same run without it shows what the first start pays. The
 * targets: a one-step run ≤ 3 ×, `rho list` and `rho --help` ≤ 2.5 ×, the first run
 * after an install or build ≤ 4 ×. Against the Node peer a task runner is measured by, a
 * one-step task (`rho run FILE TASK`, `sh -c true` unconfined, as npm runs a script) ≤ 0.6 ×
 * `npm run` of one `true` script.
 */
export async function startupSuite(context: BenchContext): Promise<SuiteResult> {
  const oneEcho = await writeEchoWorkflow(context.dir, 1);
  const makefile = await writeMakefile(context.dir, 'true', 1, 'true');
  const zxScript = await writeZxScript(context.dir, 'true', 1, 'true');
  const libraries = await writeLibraryFloor(context.dir);
  // A package.json and an .npmrc apply to whatever runs below them: the package has a directory of its own.
  const scriptsDir = path.join(context.dir, 'one-script');
  await mkdir(scriptsDir);
  const [script] = await writeScriptsPackage(scriptsDir, 1, 'true');
  const tasks = await writeScriptTasksWorkflow(scriptsDir, 1, 'true');
  const run = 'rho run (one echo step)';
  const librariesAlone = 'oclif + zod + yaml alone, bundled as rho is';
  const task = 'rho run FILE TASK (one-step task, unconfined)';
  const npmRun = 'npm run (one script)';
  const commands = [
    { name: 'node -e 0', command: 'node -e 0' },
    { name: librariesAlone, command: `node ${libraries}` },
    { name: 'rho --version', command: rhoCommand('--version') },
    { name: 'rho --help', command: rhoCommand('--help') },
    { name: 'rho list', command: rhoCommand(`list ${oneEcho}`) },
    { name: run, command: rhoCommand(`run ${oneEcho} --output plain`) },
    { name: task, command: rhoCommand(`run ${tasks} s1 --output plain --sandbox off`) },
    { name: npmRun, command: `node ${npmCliScript()} --prefix ${scriptsDir} run ${script}` },
    // The first run after an install or build, which compiles the bundle and fills the cache.
    { name: `${run}, no compile cache`, command: `env RHO_NO_COMPILE_CACHE=1 ${rhoCommand(`run ${oneEcho} --output plain`)}` },
    { name: 'make (one true)', command: `make -s -f ${makefile}` },
    { name: 'zx (one true)', command: `node ${zxScript}` },
    { name: 'concurrently (one true)', command: `${concurrentlyBin} --raw true` },
  ];
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 10, rounds: 3 }), cwd: context.dir });
  const median = (name: string) => medianOf(raw.measurements, name);
  const floor = median('node -e 0');
  const ratio = (name: string) => median(name) / floor;
  const basis = (name: string) => `${formatNumber(median(name))} ms / ${formatNumber(floor)} ms`;
  const figure = (name: string, target?: { limit: number; text: string }) => ({
    suite: 'start-up',
    name: `${name} ÷ node -e 0`,
    value: ratio(name),
    unit: '×',
    basis: basis(name),
    ...(target && { target }),
  });
  return {
    suite: 'start-up',
    figures: [
      figure('rho --version', { limit: 3, text: '≤ 3' }),
      figure('rho --help', { limit: 2.5, text: '≤ 2.5' }),
      figure('rho list', { limit: 2.5, text: '≤ 2.5' }),
      figure(run, { limit: 3, text: '≤ 3' }),
      figure(`${run}, no compile cache`, { limit: 4, text: '≤ 4' }),
      figure(task, { limit: 3, text: '≤ 3' }),
      {
        suite: 'start-up',
        name: `${task} ÷ ${npmRun}`,
        value: median(task) / median(npmRun),
        unit: '×',
        basis: `${formatNumber(median(task))} ms / ${formatNumber(median(npmRun))} ms`,
        target: { limit: 0.6, text: '≤ 0.6' },
      },
      figure(librariesAlone),
      {
        suite: 'start-up',
        name: `${run} beyond its libraries ÷ node -e 0`,
        value: (median(run) - median(librariesAlone)) / floor,
        unit: '×',
        basis: `(${formatNumber(median(run))} − ${formatNumber(median(librariesAlone))}) ms / ${formatNumber(floor)} ms`,
      },
      figure('make (one true)'),
      figure('zx (one true)'),
      figure('concurrently (one true)'),
    ],
    raw,
    notes: [],
  };
}
