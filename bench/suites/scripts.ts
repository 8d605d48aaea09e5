import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import { repoRoot } from '../lib/environment.js';
import type { Figure, SuiteResult } from '../lib/figures.js';
import { type Command, measureWithLoad, medianOf } from '../lib/hyperfine.js';
import { npmCliScript, writeScriptsPackage } from '../lib/package-scripts.js';
import { formatNumber } from '../lib/stats.js';
import { writeScriptTasksWorkflow } from '../lib/workflows.js';

/** npm-run-all2's `run-s`, started with node as rho is (`node bin/run.cjs`), not through its `env node` shebang. */
const runSScript = path.join(repoRoot, 'node_modules', 'npm-run-all2', 'bin', 'run-s', 'index.js');

const count = 10;

/** The suite's commands by role, and where they run. */
export interface ScriptsRuns {
  dir: string;
  npm: string;
  names: { runS: string; npmRun: string; rhoTasks: string; rhoSteps: string; rhoDefault: string };
  commands: Command[];
}

/**
 * Writes the package and the workflow into `parent/scripts` (a directory of its own: a
 * package.json and an .npmrc apply to whatever runs below them) and returns the commands that
 * run them.
 */
export async function writeScriptsRuns(parent: string): Promise<ScriptsRuns> {
  const dir = path.join(parent, 'scripts');
  await mkdir(dir);
  const scripts = await writeScriptsPackage(dir, count, 'true');
  const workflow = await writeScriptTasksWorkflow(dir, count, 'true');
  const npm = npmCliScript();
  const names = {
    runS: `run-s ${scripts[0]} … ${scripts[count - 1]} (${count} package.json scripts)`,
    npmRun: `npm run ${scripts[0]} (one script)`,
    rhoTasks: `rho run FILE all --sandbox off (${count} tasks through uses:)`,
    rhoSteps: `rho run FILE steps --sandbox off (one task of ${count} shell steps)`,
    rhoDefault: `rho run FILE all, default sandbox (${count} tasks)`,
  };
  const commands = [
    { name: names.runS, command: `node ${runSScript} --npm-path ${npm} ${scripts.join(' ')}` },
    { name: names.npmRun, command: `node ${npm} run ${scripts[0]}` },
    { name: names.rhoTasks, command: rhoCommand(`run ${workflow} all --output plain --sandbox off`) },
    { name: names.rhoSteps, command: rhoCommand(`run ${workflow} steps --output plain --sandbox off`) },
    { name: names.rhoDefault, command: rhoCommand(`run ${workflow} all --output plain`) },
  ];
  return { dir, npm, names, commands };
}

/**
 * Ten scripts in sequence: `run-s s1 … s10` over ten package.json scripts, against rho running
 * ten tasks of one file in order. Every script, on both sides, is `sh -c true`: npm runs a
 * script's text through `sh -c`, and each rho task's one step is a `shell` step, which does the
 * same; what differs is only the runner.
 *
 * The target (rho ÷ run-s < 1) is on `rho run FILE all`, a task whose steps are `uses: s1` …
 * `uses: s10` with `sequential: true`: ten named tasks, each one runnable alone as a script is,
 * composed in order as `run-s` composes scripts, so it pays what rho pays per task (the task's
 * own step and its outcome) on top of each process. One task of the same ten shell steps is
 * shown beside it, as the leaner way to write the same run. Both are `--sandbox off`, since
 * npm confines nothing; rho's default run of the same ten tasks (confined when bubblewrap
 * works) is shown too, without a target. `run-s` starts one `npm run` (a whole npm process)
 * per script, so `npm run s1` alone is measured beside it.
 */
export async function scriptsSuite(context: BenchContext): Promise<SuiteResult> {
  const { dir, npm, names, commands } = await writeScriptsRuns(context.dir);
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 5, rounds: 3 }), cwd: dir });
  const median = (name: string) => medianOf(raw.measurements, name);
  const peer = median(names.runS);
  const againstRunS = (name: string, what: string, target?: Figure['target']): Figure => ({
    suite: 'scripts',
    name: `rho ÷ run-s, ${what}`,
    value: median(name) / peer,
    unit: '×',
    basis: `${formatNumber(median(name))} ms / ${formatNumber(peer)} ms`,
    ...(target && { target }),
  });
  return {
    suite: 'scripts',
    figures: [
      againstRunS(names.rhoTasks, `${count} tasks in sequence (unconfined)`, { limit: 1, text: '< 1' }),
      againstRunS(names.rhoSteps, `one task of ${count} steps (unconfined)`),
      againstRunS(names.rhoDefault, `${count} tasks in sequence, default sandbox (confined when bubblewrap works)`),
      {
        suite: 'scripts',
        name: `run-s of ${count} scripts ÷ npm run of one (run-s starts npm for each script)`,
        value: peer / median(names.npmRun),
        unit: '×',
        basis: `${formatNumber(peer)} ms / ${formatNumber(median(names.npmRun))} ms`,
      },
    ],
    raw: { ...raw, npm },
    notes: [],
  };
}
