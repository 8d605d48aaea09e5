/**
 * `npx tsx bench/profile-startup.ts [RUNS]` (after `npm run build`): CPU profiles of `rho run`
 * of one echo step, the run bench/results/startup-profile.md reports. Each run's samples are
 * put in the place their code comes from (its own frame, not its callers'), and the table
 * gives each place's median over the runs. The compile cache lives in a home of the profile's
 * own, filled by two warm-up runs, as a user's is after the first start.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { benchEnv, currentLoad, rhoBin } from './lib/environment.js';
import { median } from './lib/stats.js';
import { writeEchoWorkflow } from './lib/workflows.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code comes from, in the order the table lists them. */
const places = [
  ['rho’s bundle (dist/cli/rho.cjs: rho, oclif, zod, yaml, …)', (url: string) => url.endsWith('/dist/cli/rho.cjs')],
  ['the loader (bin/run.cjs, dist/cli/compile-cache.cjs)', (url: string) => url.endsWith('/bin/run.cjs') || url.endsWith('/dist/cli/compile-cache.cjs')],
  ['dependencies required on demand (node_modules)', (url: string) => url.includes('/node_modules/')],
  ['Node.js and V8 (node: modules, and native code such as compiling and deserializing)', (url: string) => url.startsWith('node:') || url === ''],
] as const;
const special = ['(garbage collector)', '(idle)', '(program)'];

function placeOf(frame: ProfileNode['callFrame']): string {
  if (special.includes(frame.functionName)) return frame.functionName;
  return places.find(([, matches]) => matches(frame.url))?.[0] ?? 'other';
}

/** Milliseconds of samples per place. */
function byPlace(profile: CpuProfile): Map<string, number> {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const place = placeOf(nodes.get(id)!.callFrame);
    totals.set(place, (totals.get(place) ?? 0) + profile.timeDeltas[index]! / 1000);
  });
  return totals;
}

const runs = Number(process.argv[2] ?? 10);
const dir = await mkdtemp(path.join(tmpdir(), 'rho-profile-'));
try {
  const workflow = await writeEchoWorkflow(dir, 1);
  const env = { ...benchEnv(), HOME: dir, XDG_CACHE_HOME: path.join(dir, 'cache'), XDG_STATE_HOME: path.join(dir, 'state') };
  const run = (extra: string[]) => execFileSync('node', [...extra, rhoBin, 'run', workflow, '--output', 'plain'], { cwd: dir, env, stdio: 'ignore' });
  run([]);
  run([]);
  const profiles = path.join(dir, 'profiles');
  for (let index = 0; index < runs; index++) run(['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', profiles]);
  const measured: Map<string, number>[] = [];
  for (const name of await readdir(profiles)) measured.push(byPlace(JSON.parse(await readFile(path.join(profiles, name), 'utf8')) as CpuProfile));
  const names = [...places.map(([name]) => name), ...special, 'other'];
  const totals = measured.map((totalsOfRun) => [...totalsOfRun.values()].reduce((sum, ms) => sum + ms, 0));
  const [one, five] = currentLoad();
  console.log(`${runs} runs, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, load ${one} (1 min) / ${five} (5 min)\n`);
  console.log('| where the samples are | median ms | share |\n| --- | --- | --- |');
  const all = median(totals);
  for (const name of names) {
    const ms = median(measured.map((totalsOfRun) => totalsOfRun.get(name) ?? 0));
    if (ms > 0) console.log(`| ${name} | ${ms.toFixed(1)} | ${Math.round((ms / all) * 100)} % |`);
  }
  console.log(`| sampled in all | ${all.toFixed(1)} | |`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
