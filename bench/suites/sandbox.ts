import { realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import type { Figure, SuiteResult } from '../lib/figures.js';
import { measureWithLoad, medianOf, type Command } from '../lib/hyperfine.js';
import { formatNumber, marginal } from '../lib/stats.js';
import { writeExecWorkflow } from '../lib/workflows.js';
import { planConfinement, resolveConfinementPlan } from '../../src/host/confinement/index.js';
import { Policy } from '../../src/host/policy.js';
import { findInDirectories, searchDirectories } from '../../src/tools/process/executable.js';
import { bubblewrapArguments, filterDescriptor } from '../../src/tools/process/sandbox/bubblewrap/arguments.js';
import { sandboxLaunch } from '../../src/tools/process/sandbox/sandboxed-launch.js';
import { probeSandbox } from '../../src/tools/process/sandbox/probe.js';
import { seccompFilter } from '../../src/tools/process/sandbox/bubblewrap/seccomp-filter.js';
import { prepareWriteChecks } from '../../src/tools/process/sandbox/write-checks.js';
import { homeDirectories } from '../../src/workflow/user-home.js';

/** A host rule: each confined step reaches the network only through the run's proxy. */
const networkRule = 'network(127.0.0.1:9)';

/**
 * What confinement costs a process step: `exec true` N times in sequence, confined
 * (`--sandbox required`, with and without a `network(HOST)` rule) and unconfined
 * (`--sandbox off`), beside a bash loop running the very bubblewrap command rho builds for that
 * step (same arguments, same program) and the same loop running `true` bare. Marginal costs per
 * step, so every start-up (the run's proxy and shared network namespace among them) cancels
 * out; the figures are what rho adds for confinement ÷ what bubblewrap itself adds, and what a
 * network rule adds to a confined step.
 */
export async function sandboxSuite(context: BenchContext): Promise<SuiteResult> {
  const status = await probeSandbox({ mode: 'required', hostEnv: process.env });
  if (!status.confined) return { suite: 'sandbox', figures: [], raw: { status }, notes: [`sandbox: left out, ${status.reason}${status.fix ? `; ${status.fix}` : ''}`] };
  const large = context.quick ? 10 : 100;
  const truePath = findInDirectories('true', searchDirectories(process.env.PATH)) ?? '/usr/bin/true';
  const workspace = await realpath(context.dir);
  const plan = planConfinement({
    policy: Policy.fromText({ allow: ['process(true)'] }),
    workspaceRoot: workspace,
    grantedRoots: [],
    homeDirectories: homeDirectories(process.env),
  });
  // bubblewrap reads the seccomp filter from a descriptor, as rho gives it: here from a file.
  const filterFile = path.join(context.dir, 'seccomp-filter.bpf');
  await writeFile(filterFile, seccompFilter({ unixSockets: false }));
  const resolved = resolveConfinementPlan(plan);
  const bwrapLine = [
    status.location,
    ...bubblewrapArguments(resolved, { programs: [truePath], cwd: workspace, writeMounts: prepareWriteChecks(resolved, [], new Map()).mounts }),
    '--',
    truePath,
    `${filterDescriptor}<${filterFile}`,
  ].join(' ');
  const loop = async (label: string, line: string, count: number) => {
    const file = path.join(context.dir, `loop-${label}-${count}.sh`);
    await writeFile(file, `for i in $(seq ${count}); do ${line}; done\n`);
    return `bash ${file}`;
  };
  const runs: { tool: string; at: (count: number) => Promise<string> }[] = [
    {
      tool: 'rho exec true, confined',
      at: async (count) => rhoCommand(`run ${await writeExecWorkflow(context.dir, 'true', count, 'true', [])} --output plain --sandbox required`),
    },
    { tool: 'rho exec true, unconfined', at: async (count) => rhoCommand(`run ${await writeExecWorkflow(context.dir, 'true', count, 'true', [])} --output plain --sandbox off`) },
    {
      tool: 'rho exec true, confined, network rule',
      at: async (count) => rhoCommand(`run ${await writeExecWorkflow(context.dir, 'true-network', count, 'true', [], [networkRule])} --output plain --sandbox required`),
    },
    { tool: 'bash loop: bwrap … true', at: (count) => loop('bwrap', bwrapLine, count) },
    { tool: 'bash loop: true', at: (count) => loop('true', truePath, count) },
  ];
  const commands: Command[] = [];
  for (const { tool, at } of runs) commands.push({ name: `${tool} ×1`, command: await at(1) }, { name: `${tool} ×${large}`, command: await at(large) });
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 3, rounds: 3 }), cwd: context.dir });
  const perStep = (tool: string) => marginal({ size: 1, time: medianOf(raw.measurements, `${tool} ×1`) }, { size: large, time: medianOf(raw.measurements, `${tool} ×${large}`) });
  const [confined, unconfined, networked, bwrap, bare] = runs.map(({ tool }) => perStep(tool)) as [number, number, number, number, number];
  const figure = (name: string, value: number, basis: string, extra: Partial<Figure> = {}): Figure => ({
    suite: 'sandbox',
    name,
    value,
    unit: 'ms/step',
    basis,
    ...extra,
  });
  const added = confined - unconfined;
  const bwrapOwn = bwrap - bare;
  // rho's own work for one confined launch, in process: wrapping the launch in the sandbox.
  const launches = context.quick ? 1000 : 20_000;
  const target = { file: truePath, args: [], cwd: workspace, env: { PATH: process.env.PATH ?? '' } };
  const confinement = { status, plan };
  const startedAt = performance.now();
  for (let index = 0; index < launches; index++) await sandboxLaunch(target, confinement);
  const wrapMs = (performance.now() - startedAt) / launches;
  return {
    suite: 'sandbox',
    figures: [
      figure(`rho exec true, confined: marginal cost per step (1 → ${large})`, confined, `${runs[0]!.tool}`),
      figure(`rho exec true, unconfined: marginal cost per step (1 → ${large})`, unconfined, `${runs[1]!.tool}`),
      figure(`bare bwrap … true (rho's arguments): marginal cost per run in a bash loop`, bwrap, `${runs[3]!.tool}`),
      figure(`what confinement adds to a rho step (confined − unconfined)`, added, `${formatNumber(confined)} − ${formatNumber(unconfined)} ms`),
      figure(`what bwrap adds to a bare process (bwrap … true − true)`, bwrapOwn, `${formatNumber(bwrap)} − ${formatNumber(bare)} ms`),
      figure(
        `confined step with a network rule − confined step without one (marginal, 1 → ${large} steps)`,
        networked - confined,
        `${formatNumber(networked)} − ${formatNumber(confined)} ms (${networkRule})`,
        {
          target: { limit: 5, text: '≤ 5 ms' },
        },
      ),
      {
        suite: 'sandbox',
        name: 'rho’s own work per confined launch (wrapping it in the sandbox) ÷ bare bwrap’s own cost',
        value: wrapMs / bwrapOwn,
        unit: '×',
        basis: `${formatNumber(wrapMs * 1000)} µs / ${formatNumber(bwrapOwn)} ms, ${launches} launches`,
      },
      {
        suite: 'sandbox',
        name: 'rho’s cost for confinement ÷ bare bwrap’s own cost',
        value: added / bwrapOwn,
        unit: '×',
        basis: `${formatNumber(added)} ms / ${formatNumber(bwrapOwn)} ms per step`,
        target: { limit: 1.25, text: '≤ 1.25 × bare bwrap' },
      },
    ],
    raw: { ...raw, bwrapLine, size: large, wrapMs },
    notes: [],
  };
}
