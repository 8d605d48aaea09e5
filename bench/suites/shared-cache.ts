import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startTurboCacheServer } from '../../test/support/turbo-cache-server.js';
import { repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import type { SuiteResult } from '../lib/figures.js';
import { measureWithLoad, medianOf } from '../lib/hyperfine.js';
import { formatNumber } from '../lib/stats.js';

/** Steps of the shared-cache workflow. */
export const sharedCacheSteps = 50;

const range = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

/** Each step copies src/N.txt to out/N.txt, declaring the one as its source and the other as what it generates. */
async function writeBuild(dir: string, count: number): Promise<string> {
  await mkdir(path.join(dir, 'src'), { recursive: true });
  await mkdir(path.join(dir, 'out'), { recursive: true });
  for (const index of range(count)) await writeFile(path.join(dir, 'src', `${index}.txt`), `source ${index}\n`.repeat(64));
  const steps = range(count).map(
    (index) =>
      `  - id: s${index}\n    tool: exec\n    with: { command: cp, args: ["src/${index}.txt", "out/${index}.txt"] }\n    sources: ["src/${index}.txt"]\n    generates: ["out/${index}.txt"]\n`,
  );
  const allow = ['read(src/**)', 'read(out/**)', 'write(out/**)', 'process(cp)', 'network(127.0.0.1)'].map((rule) => JSON.stringify(rule)).join(', ');
  const workflow = path.join(dir, 'build.yml');
  await writeFile(workflow, `version: 1\nname: shared-${count}\npolicy:\n  allow: [${allow}]\nsteps:\n${steps.join('')}`);
  return workflow;
}

/**
 * A 50-step workflow on a machine with no outputs and no local state (a fresh CI job): its steps
 * restored from a turborepo-remote-cache server on loopback, against the same steps run (with no
 * cache, and with --force and the cache, which runs them and uploads), and against a no-op rerun
 * whose steps are up to date locally. Processes run unconfined (--sandbox off): what is measured
 * is the cache, not bubblewrap.
 */
export async function sharedCacheSuite(context: BenchContext): Promise<SuiteResult> {
  const dir = path.join(context.dir, 'shared-cache');
  const workflow = await writeBuild(dir, sharedCacheSteps);
  const server = await startTurboCacheServer(path.join(context.dir, 'shared-cache-store'), 'bench-token');
  try {
    const state = path.join(dir, '.state');
    const cache = `TURBO_API=${server.url} TURBO_TOKEN=bench-token TURBO_TEAM=bench`;
    const run = (env: string, flags = '') => `env XDG_STATE_HOME=${state} ${env} ${rhoCommand(`run ${workflow} --output plain --sandbox off ${flags}`)}`;
    const restored = `rho run (${sharedCacheSteps} steps, restored from the loopback cache)`;
    const ran = `rho run (${sharedCacheSteps} steps, run, no cache)`;
    const uploaded = `rho run --force (${sharedCacheSteps} steps, run and uploaded)`;
    const noOp = `rho run (${sharedCacheSteps} steps, up to date locally)`;
    // Before each timed run: no outputs, no local state, as on a fresh CI machine. The warm-up
    // runs of the first command (--force) fill the cache before anything is measured.
    const fresh = `bash -c ${JSON.stringify(`rm -rf ${path.join(dir, 'out')} ${path.join(state, 'rho', 'workspaces')} && mkdir ${path.join(dir, 'out')}`)}`;
    const options = { ...repetitions(context, { runs: 5, rounds: 2 }), cwd: dir };
    const cold = await measureWithLoad(
      [
        { name: uploaded, command: run(cache, '--force') },
        { name: restored, command: run(cache) },
        { name: ran, command: run('') },
      ],
      { ...options, prepare: fresh },
    );
    const warm = await measureWithLoad([{ name: noOp, command: run(cache) }], options);
    const median = (name: string) => medianOf([...cold.measurements, ...warm.measurements], name);
    const versus = (a: string, b: string) => ({
      suite: 'shared cache',
      name: `${a} ÷ ${b}`,
      value: median(a) / median(b),
      unit: '×',
      basis: `${formatNumber(median(a))} ms / ${formatNumber(median(b))} ms`,
    });
    return {
      suite: 'shared cache',
      figures: [versus(restored, ran), versus(restored, noOp), versus(uploaded, ran), versus(ran, noOp)],
      raw: { cold, warm },
      notes: [],
    };
  } finally {
    await server.stop();
  }
}
