import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import { repoRoot } from '../lib/environment.js';
import type { Figure, SuiteResult } from '../lib/figures.js';
import { type Command, measureWithLoad, medianOf } from '../lib/hyperfine.js';
import { formatNumber } from '../lib/stats.js';
import { probeSandbox } from '../../src/tools/process/sandbox/probe.js';

/** `just` from npm (linux x64 package of `rust-just`), as the tasks suite runs it. */
const justBin = path.join(repoRoot, 'node_modules', 'rust-just-linux-x64', 'bin', 'just');

/**
 * A Rust project's CI recipe, command by command: what a real justfile's `ci`-like task runs.
 * Each program is a stub (`stubs/NAME`) that takes about as long as a quick toolchain command.
 */
export const toolchainCommands: readonly (readonly [string, ...string[]])[] = [
  ['cargo', 'build', '--workspace'],
  ['cargo', 'test', '--workspace'],
  ['cargo', 'clippy', '--all-targets', '--', '--deny', 'warnings'],
  ['cargo', 'fmt', '--all', '--', '--check'],
  ['cargo', 'doc', '--no-deps'],
  ['cargo', 'update', '--locked', '--package', 'app'],
  ['cargo', 'run', '--', '--man'],
  ['rustup', 'component', 'list', '--installed'],
  ['mdbook', 'build', 'book'],
  ['mdbook', 'test', 'book'],
  ['shellcheck', 'bin/forbid'],
  ['forbid'],
  ['git', 'diff', '--exit-code'],
  ['git', 'status', '--porcelain'],
  ['changeling', 'check'],
  ['python3', 'bin/update-contributors'],
];

/** How long each stub takes: a shell that runs `sleep`, about what a quick toolchain command costs. */
const stubScript = '#!/bin/sh\nexec sleep 0.005\n';

/** The suite's commands by role, and where they run. */
export interface ToolchainRuns {
  dir: string;
  names: { just: string; rhoOff: string; rhoConfined: string };
  commands: Command[];
}

/**
 * Writes the stubs, the justfile and the workflow into `parent/toolchain` and returns the commands
 * that run them. The workflow's policy is the kind a Rust project's has: each program by name, a
 * cargo cache, and `network(HOST)` rules for the registries, so a confined run puts every step
 * behind the filtering proxy, as a real one does.
 */
export async function writeToolchainRuns(parent: string): Promise<ToolchainRuns> {
  const dir = path.join(parent, 'toolchain');
  await mkdir(path.join(dir, 'stubs'), { recursive: true });
  const programs = [...new Set(toolchainCommands.map(([program]) => program))];
  for (const program of programs) {
    await writeFile(path.join(dir, 'stubs', program), stubScript);
    await chmod(path.join(dir, 'stubs', program), 0o755);
  }
  const line = ([program, ...args]: readonly string[]) => [`stubs/${program}`, ...args].join(' ');
  await writeFile(path.join(dir, 'justfile'), `ci:\n${toolchainCommands.map((command) => `    @${line(command)}\n`).join('')}`);
  const rules = [...programs.map((program) => `process(stubs/${program})`), 'network(crates.io)', 'network(index.crates.io)', 'network(static.crates.io)', 'network(github.com)'];
  await writeFile(
    path.join(dir, 'ci.yml'),
    [
      'version: 1\nname: toolchain\nworkspace: .\n',
      `policy:\n  caches: [cargo]\n  allow: [${rules.map((rule) => JSON.stringify(rule)).join(', ')}]\n`,
      `tasks:\n  ci:\n    sequential: true\n    steps:\n${toolchainCommands.map((command) => `      - exec: ${line(command)}\n`).join('')}`,
    ].join(''),
  );
  const names = {
    just: `just ci (${toolchainCommands.length} lines)`,
    rhoOff: `rho run ci.yml ci --sandbox off (${toolchainCommands.length} steps)`,
    rhoConfined: `rho run ci.yml ci, confined (${toolchainCommands.length} steps behind the proxy)`,
  };
  const commands = [
    { name: names.just, command: `${justBin} --justfile ${path.join(dir, 'justfile')} --working-directory ${dir} ci` },
    { name: names.rhoOff, command: rhoCommand(`run ${path.join(dir, 'ci.yml')} ci --output plain --sandbox off`) },
    { name: names.rhoConfined, command: rhoCommand(`run ${path.join(dir, 'ci.yml')} ci --output plain --sandbox required`) },
  ];
  return { dir, names, commands };
}

/**
 * A 16-command CI task of a Rust project, through `just` and through rho, each program a stub
 * taking about 5 ms: rho with `--sandbox off` (target ≤ 1.5 × just) and confined, every step
 * behind the filtering proxy as the policy's network rules ask (target ≤ 2.5 × just), left out
 * with a note where bubblewrap does not work.
 */
export async function toolchainSuite(context: BenchContext): Promise<SuiteResult> {
  const { dir, names, commands: all } = await writeToolchainRuns(context.dir);
  const status = await probeSandbox({ mode: 'required', hostEnv: process.env });
  const notes = status.confined ? [] : [`toolchain: the confined run is left out, ${status.reason}${status.fix ? `; ${status.fix}` : ''}`];
  const commands = status.confined ? all : all.filter((command) => command.name !== names.rhoConfined);
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 5, rounds: 3 }), cwd: dir });
  const median = (name: string) => medianOf(raw.measurements, name);
  const just = median(names.just);
  const againstJust = (name: string, what: string, target: Figure['target']): Figure => ({
    suite: 'toolchain',
    name: `rho ÷ just, a ${toolchainCommands.length}-command CI task of stubs, ${what}`,
    value: median(name) / just,
    unit: '×',
    basis: `${formatNumber(median(name))} ms / ${formatNumber(just)} ms`,
    target,
  });
  return {
    suite: 'toolchain',
    figures: [
      againstJust(names.rhoOff, '--sandbox off', { limit: 1.5, text: '≤ 1.5' }),
      ...(status.confined ? [againstJust(names.rhoConfined, 'confined, behind the proxy', { limit: 2.5, text: '≤ 2.5' })] : []),
    ],
    raw: { ...raw, status },
    notes,
  };
}
