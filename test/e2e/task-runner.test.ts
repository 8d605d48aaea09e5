import { realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

// rho as a task runner, typed as a just user types it: the file found from a subdirectory,
// positional parameters, aliases, private helpers, prerequisites that run once, platforms and
// the keys a task sets for all its steps. One project serves every test that only reads it.
const directories = temporaryDirectories('rho-task-runner-');
afterAll(() => directories.removeAll());

const platformName = ({ darwin: 'macos', win32: 'windows' } as Partial<Record<NodeJS.Platform, string>>)[process.platform] ?? process.platform;
const otherPlatform = process.platform === 'win32' ? 'linux' : 'windows';
const echo = (id: string, value: string) => `      - { id: ${id}, tool: echo, with: { value: "${value}" } }\n`;

const project = `version: 1
name: project
inputs:
  mode: { type: string, default: debug }
policy:
  allow: ["process(node)", "write(dist/**)", "write(tmp/**)"]
  env: [WHO, LEVEL]
tasks:
  test-crate:
    description: Test one crate
    aliases: [tc]
    inputs:
      name:
      extra: { type: array }
    steps:
${echo('say', "crate=${{ inputs.name }} extra=${{ join(inputs.extra, ',') }} mode=${{ inputs.mode }}")}
  greet:
    inputs:
      who: world
      times: 1
    steps:
${echo('say', 'hi ${{ inputs.who }} x${{ inputs.times }}')}
  where:
    steps:
${echo('at', 'workspace=${{ rho.workspace }} cwd=${{ rho.cwd }}')}
  _setup:
    inputs:
      level: one
    steps:
${echo('s', 'setup ${{ inputs.level }}')}
  helper:
    private: true
    steps:
${echo('h', 'helped')}
  stamp:
    run: always
    steps:
${echo('t', 'stamped')}
  lint:
    needs: _setup
    steps:
${echo('l', 'linted')}
  typecheck:
    needs: [_setup, helper]
    steps:
${echo('c', 'checked')}
  all:
    steps:
      - uses: lint
      - uses: typecheck
      - uses: _setup
      - { id: again, uses: _setup, with: { level: two } }
      - uses: stamp
      - uses: stamp
  other-os:
    platforms: [${otherPlatform}]
    steps:
${echo('o', 'elsewhere')}
  portable:
    steps:
      - uses: other-os
      - { id: only-there, tool: echo, platforms: [${otherPlatform}], with: { value: there } }
      - { id: here, tool: echo, platforms: [${platformName === 'windows' ? 'windows' : 'unix'}], with: { value: here } }
  envy:
    env: { WHO: task, LEVEL: 2 }
    steps:
      - node -e "console.log(process.env.WHO + ' ' + process.env.LEVEL)"
      - exec: node -e "console.log(process.env.WHO + ' ' + process.env.LEVEL)"
        env: { WHO: step }
  build:
    writes: [dist/**]
    steps:
      - node -e "1"
      - { id: narrow, exec: node -e "2", writes: [tmp/**] }
`;

let root = '';
let deeper = '';
beforeAll(async () => {
  root = await realpath(await directories.make());
  deeper = path.join(root, 'crates', 'cli');
  await writeFiles(root, { 'rho.yml': project, 'crates/cli/src/lib.rs': '' });
});

/** `rho ARGS` from the subdirectory, as `cd crates/cli && just …`. */
const rho = (args: readonly string[], cwd = deeper) => runCli(args, { cwd });

interface RunEvent {
  type: string;
  stepId?: string;
  message?: string;
  status?: string;
  reason?: string;
  workspace?: string;
  task?: string;
}

const eventsOf = (stdout: string): RunEvent[] =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RunEvent);
const messages = (events: readonly RunEvent[]) => events.flatMap((event) => (event.type === 'step_progress' && event.message !== undefined ? [event.message] : []));
const started = (events: readonly RunEvent[]) => events.filter((event) => event.type === 'step_started').map((event) => event.stepId);

describe.concurrent('rho run TASK ARG... (end to end)', { timeout: 120_000 }, () => {
  it('fills positional parameters in order, the last array taking the rest', async () => {
    const result = await rho(['run', 'test-crate', 'biome_cli', 'a', 'b', '--output', 'json']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(messages(eventsOf(result.stdout))).toEqual(['crate=biome_cli extra=a,b mode=debug']);
  });

  it('takes an alias, NAME=VALUE for the task’s and the file’s inputs, -i, and what follows --', async () => {
    const result = await rho(['run', 'tc', 'name=biome_cli', 'mode=release', '--output', 'json', '--', 'x', 'y']);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = eventsOf(result.stdout);
    expect(events[0]).toMatchObject({ type: 'run_started', task: 'test-crate' });
    expect(messages(events)).toEqual(['crate=biome_cli extra=x,y mode=release']);
    const named = await rho(['run', 'greet', '-i', 'who=rho', '3', '--output', 'json']);
    expect(named.exitCode, named.stderr).toBe(0);
    expect(messages(eventsOf(named.stdout))).toEqual(['hi rho x3']);
  });

  it('refuses a wrong count with exit 2 and the usage line, running nothing', async () => {
    const missing = await rho(['run', 'test-crate']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('task test-crate got 0 arguments but takes at least 1 (usage: rho run test-crate name [extra...])');
    expect(missing.stdout).toBe('');
    const tooMany = await rho(['run', 'greet', 'a', 'b', 'c']);
    expect(tooMany.exitCode).toBe(2);
    expect(tooMany.stderr).toContain('task greet got 3 arguments but takes at most 2 (usage: rho run greet [who=world] [times=1])');
  });

  it('lists each public task with its parameters and aliases, and the file’s inputs once', async () => {
    const result = await rho(['list']);
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Tasks in ${path.join('..', '..', 'rho.yml')}:`);
    expect(lines).toContain('  test-crate name [extra...]   Test one crate  [alias: tc]');
    expect(lines).toContain('  greet [who=world] [times=1]');
    expect(lines.at(-1)).toBe('Inputs of every task: -i mode=debug');
    expect(result.stdout.match(/mode=debug/g)).toHaveLength(1);
    // Private tasks are left out: a leading _ and private: true.
    expect(result.stdout).not.toMatch(/_setup|helper/);
    const json = JSON.parse((await rho(['list', '--json'])).stdout) as {
      inputs: { name: string }[];
      tasks: { name: string; aliases: string[]; parameters: { name: string; variadic: boolean }[] }[];
    };
    expect(json.inputs.map((input) => input.name)).toEqual(['mode']);
    expect(json.tasks.find((task) => task.name === 'test-crate')).toMatchObject({
      aliases: ['tc'],
      parameters: [
        { name: 'name', variadic: false },
        { name: 'extra', variadic: true },
      ],
    });
    expect(json.tasks.map((task) => task.name)).not.toContain('_setup');
  });
});

describe.concurrent('finding the workflow file (end to end)', { timeout: 120_000 }, () => {
  it('runs rho.yml found upward, in that file’s directory', async () => {
    const result = await rho(['run', 'where', '--output', 'json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = eventsOf(result.stdout);
    expect(events[0]).toMatchObject({ type: 'run_started', workspace: root });
    expect(messages(events)).toEqual([`workspace=${root} cwd=${deeper}`]);
  });

  it('plans a task of the file found, with its arguments', async () => {
    const result = await rho(['plan', 'test-crate', 'biome_cli']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('Plan for project');
    expect(result.stdout).toMatch(/^say \(echo\)/m);
    const missing = await rho(['plan', 'test-crate']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('(usage: rho plan test-crate name [extra...])');
  });

  it('runs a named file in its own directory; --workspace is relative to where rho started', async () => {
    const elsewhere = await realpath(await directories.make());
    await writeFiles(elsewhere, { 'tools/tasks.yml': `version: 1\nname: tools\ntasks:\n  where:\n    steps:\n${echo('at', '${{ rho.workspace }}')}` });
    const file = path.join('..', path.basename(elsewhere), 'tools', 'tasks.yml');
    const inFileDirectory = await runCli(['run', file, 'where', '--output', 'json'], { cwd: root });
    expect(inFileDirectory.exitCode, inFileDirectory.stderr).toBe(0);
    expect(messages(eventsOf(inFileDirectory.stdout))).toEqual([path.join(elsewhere, 'tools')]);
    const flagged = await runCli(['run', file, 'where', '-w', '.', '--output', 'json'], { cwd: root });
    expect(messages(eventsOf(flagged.stdout))).toEqual([root]);
  });

  it('is a usage error (exit 2) when no file is named and none is found', async () => {
    const empty = await realpath(await directories.make());
    const results = await Promise.all([['run', 'build'], ['list']].map((args) => runCli(args, { cwd: empty })));
    for (const result of results) {
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(`no rho.yml or rho.yaml is in ${empty} or a directory above it; name a workflow file, or write one with rho init`);
    }
    expect(results[0]!.stderr).toContain('"build" is not a file, and');
  });
});

describe.concurrent('aliases and private tasks (end to end)', { timeout: 120_000 }, () => {
  it('refuses an alias that clashes, at validation', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'rho.yml': `version: 1\nname: clash\ntasks:\n  format:\n    aliases: [f, build]\n    steps:\n${echo('a', 'a')}  build:\n    aliases: [f]\n    steps:\n${echo('b', 'b')}`,
    });
    const result = await runCli(['validate'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      'rho.yml:5:18: alias build of task format is the name of a task',
      'rho.yml:9:15: alias f of task build is already an alias of task format',
    ]);
  });

  it('runs a private task by name, and leaves private tasks out of the names it suggests', async () => {
    const [direct, unknown] = await Promise.all([rho(['run', '_setup', 'level=three', '--output', 'json']), rho(['run', 'lnt'])]);
    expect(direct.exitCode, direct.stderr).toBe(0);
    expect(messages(eventsOf(direct.stdout))).toEqual(['setup three']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('has no task "lnt"; did you mean "lint"?');
    expect(unknown.stderr).not.toMatch(/_setup|helper/);
  });
});

describe.concurrent('prerequisites, platforms and task-level keys (end to end)', { timeout: 120_000 }, () => {
  it('runs needs: first and a task used again with the same inputs once; run: always runs each time', async () => {
    const result = await rho(['run', 'all', '-j', '4', '--output', 'json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = eventsOf(result.stdout);
    // _setup with level one, needed by lint and typecheck and used by all, runs once; with level two, again.
    expect(messages(events).filter((message) => message.startsWith('setup'))).toEqual(['setup one', 'setup two']);
    expect(messages(events).filter((message) => message === 'stamped')).toHaveLength(2);
    expect(messages(events).filter((message) => message === 'helped')).toHaveLength(1);
    const repeat = events.find((event) => event.type === 'step_finished' && event.stepId === 'typecheck/setup');
    expect(repeat).toMatchObject({ status: 'success' });
    // A task's own steps start only after its needs finished, whatever -j allows.
    const seq = (type: string, stepId: string) => events.findIndex((event) => event.type === type && event.stepId === stepId);
    expect(seq('step_finished', 'lint/setup')).toBeLessThan(seq('step_started', 'lint/l'));
    expect(seq('step_finished', 'typecheck/helper')).toBeLessThan(seq('step_started', 'typecheck/c'));
    expect(started(events)).not.toContain('typecheck/setup/s');
  });

  it('skips a task or a step meant for another platform, saying why, in a run and in a plan', async () => {
    const [run, plan] = await Promise.all([rho(['run', 'portable', '--output', 'json']), rho(['plan', 'portable'])]);
    expect(run.exitCode, run.stderr).toBe(0);
    const events = eventsOf(run.stdout);
    const finished = (stepId: string) => events.find((event) => event.type === 'step_finished' && event.stepId === stepId);
    expect(finished('other-os/o')).toMatchObject({ status: 'skipped', reason: `task other-os runs only on ${otherPlatform} (this is ${platformName})` });
    expect(finished('only-there')).toMatchObject({ status: 'skipped', reason: `it runs only on ${otherPlatform} (this is ${platformName})` });
    expect(messages(events)).toEqual(['here']);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`task other-os runs only on ${otherPlatform} (this is ${platformName}): it would be skipped`);
    expect(plan.stdout).toContain(`it runs only on ${otherPlatform} (this is ${platformName}): it would be skipped`);
  });

  it('gives a task’s env: to its process steps, a step’s own winning', async () => {
    const result = await rho(['run', 'envy', '--sandbox', 'off', '--output', 'json']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(messages(eventsOf(result.stdout))).toEqual(['task 2', 'step 2']);
  });

  it('narrows where a task’s process steps write to its writes:, a step’s own winning', async () => {
    const result = await rho(['plan', 'build']);
    expect(result.exitCode, result.stderr).toBe(0);
    const blocks = result.stdout.split('\n\n');
    expect(blocks.find((block) => block.startsWith('node (exec)'))).toContain(`writes: ${path.join(root, 'dist')}/**`);
    expect(blocks.find((block) => block.startsWith('narrow (exec)'))).toContain(`writes: ${path.join(root, 'tmp')}/**`);
  });
});

describe('sources: and generates: on a task (end to end)', { timeout: 120_000 }, () => {
  it('skips the whole task while nothing it reads or writes changed', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'src/main.txt': 'one\n',
      'rho.yml': `version: 1
name: incremental
policy:
  allow: ["read(src/**)", "write(out/**)", "read(out/**)"]
tasks:
  build:
    sources: [src/**]
    generates: [out/**]
    steps:
      - { id: copy, tool: write_file, with: { path: out/main.txt, content: built, create_dirs: true } }
${echo('note', 'built')}
  ship:
    steps:
      - uses: build
${echo('done', 'shipped')}`,
    });
    const build = async (...args: string[]) => eventsOf((await runCli(['run', ...args, '--output', 'json'], { cwd: dir })).stdout);
    const statuses = (events: readonly RunEvent[]) => Object.fromEntries(events.filter((event) => event.type === 'step_finished').map((event) => [event.stepId, event.status]));

    expect(statuses(await build('build'))).toEqual({ copy: 'success', note: 'success' });
    const second = await build('build');
    expect(statuses(second)).toEqual({ copy: 'up_to_date', note: 'up_to_date' });
    expect(second.find((event) => event.stepId === 'copy' && event.type === 'step_finished')?.reason).toBe(
      'task build is up to date: nothing it depends on changed since its last successful run',
    );
    // Through uses:, the same task with the same inputs is the same check.
    expect(statuses(await build('ship'))).toEqual({ 'build/copy': 'up_to_date', 'build/note': 'up_to_date', build: 'up_to_date', done: 'success' });
    await writeFile(path.join(dir, 'src', 'main.txt'), 'two\n');
    expect(statuses(await build('build'))).toEqual({ copy: 'success', note: 'success' });
    // --force-step names the task, as its check is the task's.
    expect(statuses(await build('build', '--force-step', 'build'))).toEqual({ copy: 'success', note: 'success' });
  });
});
