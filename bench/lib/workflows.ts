import { writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The workflow files the benchmarks run, written into a scratch directory. */

function workflow(name: string, allow: readonly string[], steps: readonly string[]): string {
  const policy = allow.length > 0 ? `policy:\n  allow: [${allow.map((rule) => JSON.stringify(rule)).join(', ')}]\n` : '';
  return `version: 1\nname: ${name}\n${policy}steps:\n${steps.join('')}`;
}

const echoStep = (index: number) => `  - id: s${index}\n    tool: echo\n    with: { value: "step ${index}" }\n`;

const execStep = (index: number, command: string, args: readonly string[]) =>
  `  - id: s${index}\n    tool: exec\n    with: { command: ${JSON.stringify(command)}, args: ${JSON.stringify(args)} }\n`;

const range = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

/** `count` independent echo steps: no capability, no process, only rho's own path. */
export async function writeEchoWorkflow(dir: string, count: number): Promise<string> {
  const file = path.join(dir, `echo-${count}.yml`);
  await writeFile(file, workflow(`echo-${count}`, [], range(count).map(echoStep)));
  return file;
}

/** `count` steps each running `command args…` through the exec tool, allowed by one rule (and `rules` besides). */
export async function writeExecWorkflow(dir: string, label: string, count: number, command: string, args: readonly string[], rules: readonly string[] = []): Promise<string> {
  const file = path.join(dir, `${label}-${count}.yml`);
  await writeFile(
    file,
    workflow(
      `${label}-${count}`,
      [`process(${command})`, ...rules],
      range(count).map((index) => execStep(index, command, args)),
    ),
  );
  return file;
}

/** A Makefile whose `all` target depends on `count` targets each running `recipe`. */
export async function writeMakefile(dir: string, label: string, count: number, recipe: string): Promise<string> {
  const file = path.join(dir, `${label}-${count}.mk`);
  const targets = range(count).map((index) => `t${index}`);
  const rules = targets.map((target) => `${target}:\n\t@${recipe}\n`).join('');
  await writeFile(file, `.PHONY: all ${targets.join(' ')}\nall: ${targets.join(' ')}\n${rules}`);
  return file;
}

/** A zx script running `command` `count` times in sequence (zx is imported by URL: the script lives outside the repo). */
export async function writeZxScript(dir: string, label: string, count: number, command: string): Promise<string> {
  const file = path.join(dir, `zx-${label}-${count}.mjs`);
  await writeFile(file, `import { $ } from '${import.meta.resolve('zx')}';\n$.verbose = false;\nfor (let i = 0; i < ${count}; i++) await $\`${command}\`;\n`);
  return file;
}

/** A plain Node script that runs `command args…` once and reads its output through a pipe, dropping it: Node's floor for a step's output. */
export async function writeNodeReader(dir: string, label: string, command: string, args: readonly string[]): Promise<string> {
  const file = path.join(dir, `node-read-${label}.mjs`);
  await writeFile(
    file,
    `import { spawn } from 'node:child_process';\nspawn(${JSON.stringify(command)}, ${JSON.stringify(args)}, { stdio: ['ignore', 'pipe', 'inherit'] }).stdout.on('data', () => {});\n`,
  );
  return file;
}

/** A plain Node script running `command` `count` times in sequence with child_process. */
export async function writeNodeLoop(dir: string, label: string, count: number, command: string): Promise<string> {
  const file = path.join(dir, `node-${label}-${count}.mjs`);
  await writeFile(file, `import { spawnSync } from 'node:child_process';\nfor (let i = 0; i < ${count}; i++) spawnSync(${JSON.stringify(command)}, { stdio: 'inherit' });\n`);
  return file;
}

/**
 * A plain Node script running `command` `count` times in sequence with `child_process.spawn`,
 * reading both pipes and waiting for each child to close: the least any Node runner that keeps
 * a step's output does per process.
 */
export async function writeNodeSpawnLoop(dir: string, label: string, count: number, command: string): Promise<string> {
  const file = path.join(dir, `node-spawn-${label}-${count}.mjs`);
  const once = `new Promise((resolve) => { const child = spawn(${JSON.stringify(command)}, [], { stdio: ['ignore', 'pipe', 'pipe'] }); child.stdout.on('data', () => {}); child.stderr.on('data', () => {}); child.on('close', resolve); })`;
  await writeFile(file, `import { spawn } from 'node:child_process';\nfor (let i = 0; i < ${count}; i++) await ${once};\n`);
  return file;
}

/**
 * A plain Node script that runs `command` `count` times in sequence through execa exactly as rho
 * starts a process (`execaOptions` from the build, the program found on PATH first), reading
 * both pipes: execa's own share of a process step, without rho's host and runner.
 */
export async function writeExecaSpawnLoop(dir: string, label: string, count: number, command: string): Promise<string> {
  const file = path.join(dir, `execa-spawn-${label}-${count}.mjs`);
  const built = (module: string) => JSON.stringify(new URL(`../../dist/src/tools/process/${module}`, import.meta.url).href);
  const once = `new Promise((resolve) => { const child = execa(program, [], execaOptions(target, undefined)); child.stdout.on('data', () => {}); child.stderr.on('data', () => {}); child.on('close', resolve); })`;
  await writeFile(
    file,
    [
      `import { execaOptions, loadExeca } from ${built('process-group.js')};`,
      `import { findInDirectories, searchDirectories } from ${built('executable.js')};`,
      'const { execa } = await loadExeca();',
      `const program = findInDirectories(${JSON.stringify(command)}, searchDirectories(process.env.PATH));`,
      'const target = { cwd: process.cwd(), env: { ...process.env } };',
      `for (let i = 0; i < ${count}; i++) await ${once};`,
      '',
    ].join('\n'),
  );
  return file;
}

/**
 * One echo step, with the example stdio MCP server (workflows/mcp/scratchpad-server.mjs)
 * declared: `called` adds a second step calling one of its tools; otherwise nothing uses it.
 */
export async function writeMcpWorkflow(dir: string, server: string, called: boolean): Promise<string> {
  const file = path.join(dir, `mcp-${called ? 'called' : 'unused'}.yml`);
  const call = called ? '  - id: slug\n    tool: pad.slugify\n    with: { title: "Hello, MCP" }\n' : '';
  const body = workflow(`mcp-${called ? 'called' : 'unused'}`, [`process(node ${server})`, 'network_tool(pad.*)'], [echoStep(1), call]);
  await writeFile(file, body.replace('steps:\n', `tools:\n  - mcp: { name: pad, command: [node, ${JSON.stringify(server)}] }\nsteps:\n`));
  return file;
}

/** A file whose task `build` runs `command` `count` times (exec, in order), beside a `lint` task it does not run. */
export async function writeTaskWorkflow(dir: string, count: number, command: string): Promise<string> {
  const file = path.join(dir, `tasks-${count}.yml`);
  const steps = range(count).map((index) => execStep(index, command, []).replace(/^ {2}/gm, '      '));
  const text = [
    `version: 1\nname: tasks-${count}\npolicy:\n  allow: [${JSON.stringify(`process(${command})`)}]\ntasks:\n`,
    `  lint:\n    steps:\n      - { id: lint, tool: exec, with: { command: ${JSON.stringify(command)} } }\n`,
    `  build:\n    sequential: true\n    steps:\n${steps.join('')}`,
  ].join('');
  await writeFile(file, text);
  return file;
}

/** The same recipe for `just`: `build` runs `command` `count` times, one recipe line each. */
export async function writeJustfile(dir: string, count: number, command: string): Promise<string> {
  const file = path.join(dir, `tasks-${count}.just`);
  await writeFile(
    file,
    `lint:\n    @${command}\n\nbuild:\n${range(count)
      .map(() => `    @${command}\n`)
      .join('')}`,
  );
  return file;
}

/**
 * `count` tasks `s1`…`sN`, each one `shell` step running `script` (as `sh -c`, the way npm runs a
 * package.json script), with `all` running them in order through `uses:` and `steps` holding
 * the same `count` shell steps in one task.
 */
export async function writeScriptTasksWorkflow(dir: string, count: number, script: string): Promise<string> {
  const file = path.join(dir, 'rho.yml');
  const shellStep = (index: number, indent: string) => `${indent}- { id: s${index}, shell: ${JSON.stringify(script)} }\n`;
  const tasks = range(count).map((index) => `  s${index}:\n    steps:\n${shellStep(index, '      ')}`);
  const all = `  all:\n    sequential: true\n    steps:\n${range(count)
    .map((index) => `      - uses: s${index}\n`)
    .join('')}`;
  const steps = `  steps:\n    sequential: true\n    steps:\n${range(count)
    .map((index) => shellStep(index, '      '))
    .join('')}`;
  await writeFile(file, `version: 1\nname: scripts-${count}\npolicy:\n  allow: [shell]\ntasks:\n${tasks.join('')}${all}${steps}`);
  return file;
}
