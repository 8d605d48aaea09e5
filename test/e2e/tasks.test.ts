import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());
const example = (name: string) => path.join(repoRoot, 'workflows', name);

/** Runs rho once in a new directory holding `files`. */
async function runWith(files: Record<string, string>, args: readonly string[]) {
  const dir = await directories.make();
  await writeFiles(dir, files);
  return runCli(args, { cwd: dir });
}

const taskFile = `version: 1
name: project
inputs:
  mode: { type: string, default: debug }
tasks:
  build:
    description: Compile the project
    inputs:
      target: { type: string, default: all, description: What to build }
    steps:
      - { id: compile, tool: echo, with: { value: "build \${{ inputs.target }} \${{ inputs.mode }}" } }
  test:
    steps:
      - { id: run, tool: echo, with: { value: tested } }
`;

describe.concurrent('named tasks (end to end)', () => {
  it('runs the task named after the file, with its own and the file’s inputs', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'tasks.yml': taskFile });
    const result = await runCli(['run', 'tasks.yml', 'build', '-i', 'target=lib', '--output', 'json'], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events[0]).toMatchObject({ type: 'run_started', task: 'build', steps: [{ id: 'compile' }] });
    expect(events.find((event) => event.type === 'step_progress')?.message).toBe('build lib debug');
  });

  it('refuses an unknown task with exit 2 and a did-you-mean, running nothing', async () => {
    const result = await runWith({ 'tasks.yml': taskFile }, ['run', 'tasks.yml', 'biuld']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('tasks.yml has no task "biuld"; did you mean "build"? (tasks: build, test)');
    expect(result.stdout).toBe('');
  });

  it('says which tasks exist when the file has no default steps', async () => {
    const result = await runWith({ 'tasks.yml': taskFile }, ['run', 'tasks.yml']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('has no default steps; name a task: rho run tasks.yml TASK (tasks: build, test)');
  });

  it('lists tasks with their parameters and descriptions, then the file’s inputs once, as text and as JSON', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'tasks.yml': taskFile });
    const text = await runCli(['list', 'tasks.yml'], { cwd: dir });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout.split('\n')).toEqual(['Tasks in tasks.yml:', '  build [target=all]  Compile the project', '  test', 'Inputs of every task: -i mode=debug']);
    const json = await runCli(['list', 'tasks.yml', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout)).toEqual({
      file: 'tasks.yml',
      workflow: 'project',
      inputs: [{ name: 'mode', type: 'string', required: false, default: 'debug' }],
      tasks: [
        {
          name: 'build',
          aliases: [],
          description: 'Compile the project',
          parameters: [{ name: 'target', type: 'string', required: false, default: 'all', description: 'What to build', variadic: false }],
          steps: 1,
        },
        { name: 'test', aliases: [], parameters: [], steps: 1 },
      ],
    });
  });

  it('validates every task, not only the one run, and refuses an input declared twice', async () => {
    const result = await runWith(
      {
        'bad.yml': `version: 1
name: bad
inputs:
  mode: { type: string }
tasks:
  good:
    steps: [{ id: a, tool: echo }]
  broken:
    inputs:
      mode: { type: string }
    steps: [{ id: a, tool: ecoh }]
`,
      },
      ['run', 'bad.yml', 'good'],
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('bad.yml:10:7: input mode is declared by the file and by task broken; rename one');
    expect(result.stderr).toContain('bad.yml:11:28: unknown tool "ecoh"; did you mean "echo"?');
  });

  it('runs workflows/tasks.yml: the default task, and a named one with an input', async () => {
    const dir = await directories.make();
    const fallback = await runCli(['run', example('tasks.yml'), '-w', dir, '--output', 'plain'], { cwd: dir });
    expect(fallback.exitCode, fallback.stderr).toBe(0);
    expect(fallback.stdout).toContain('[help] Tasks: greet, test, build');
    const greet = await runCli(['run', example('tasks.yml'), 'greet', '-w', dir, '-i', 'who=rho', '--output', 'plain'], { cwd: dir });
    expect(greet.exitCode, greet.stderr).toBe(0);
    expect(greet.stdout).toContain('rho: tasks › greet (1 step)');
    expect(greet.stdout).toContain('[node] Hello, rho!');
    const passed = await runCli(['run', example('tasks.yml'), 'test', '-w', dir, '--output', 'plain', '--', '--watch', 'a b'], { cwd: dir });
    expect(passed.exitCode, passed.stderr).toBe(0);
    expect(passed.stdout).toContain('[node] test runner got ["--watch","a b"]');
    const listed = await runCli(['list', example('tasks.yml')], { cwd: dir });
    expect(listed.stdout).toMatch(/\(default\)\s+Say which tasks there are/);
  });

  it('applies file and task defaults: cwd for process tools, timeout, continue_on_error; a step’s own setting wins', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'sub/keep.txt': '',
      'other/keep.txt': '',
      'defaults.yml': `version: 1
name: defaults
defaults: { cwd: sub, continue_on_error: true }
policy: { allow: ["process(node)"] }
tasks:
  check:
    defaults: { timeout: 2s }
    steps:
      - { id: here, tool: exec, with: { command: node, args: [-e, "console.log(process.cwd())"] } }
      - { id: there, tool: exec, with: { command: node, args: [-e, "console.log(process.cwd())"], cwd: other } }
      - { id: slow, tool: exec, with: { command: node, args: [-e, "setTimeout(() => {}, 30000)"] } }
      - { id: patient, tool: exec, timeout: 20s, continue_on_error: false, with: { command: node, args: [-e, "setTimeout(() => {}, 2500)"] } }
      - { id: label, tool: echo, with: { value: echo has no cwd } }
`,
    });
    const result = await runCli(['run', 'defaults.yml', 'check', '--output', 'json'], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const printed = (id: string) => events.find((event) => event.type === 'step_progress' && event.stepId === id)?.message;
    expect(printed('here')).toBe(path.join(dir, 'sub'));
    expect(printed('there')).toBe(path.join(dir, 'other'));
    const finished = Object.fromEntries(events.filter((event) => event.type === 'step_finished').map((event) => [event.stepId, event]));
    expect(finished.slow).toMatchObject({ status: 'failure', error: { kind: 'timeout' }, continueOnError: true });
    expect(finished.patient).toMatchObject({ status: 'success' });
    expect(finished.label).toMatchObject({ status: 'success' });
  });

  it('reports a bad default once, where it is written', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'bad.yml': `version: 1
name: bad
defaults: { timeout: 48h }
steps:
  - { id: a, tool: echo }
  - { id: b, tool: echo }
`,
    });
    const result = await runCli(['validate', 'bad.yml'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('bad.yml:3:22: duration "48h" is longer than 24h');
  });

  it('gives expressions the run context, and only the host variables host_env names', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'flows/context.yml': `version: 1
name: context
workspace: ..
host_env: [GREETING, ABSENT]
env:
  MESSAGE: "\${{ env.GREETING }} from \${{ rho.task }}"
policy: { allow: ["process(node)"], process_env: empty, env: [MESSAGE] }
tasks:
  show:
    steps:
      - { id: context, tool: echo, with: { value: "\${{ rho }}" } }
      - id: child
        tool: exec
        with: { command: "\${{ rho.ci && 'node' || 'false' }}", args: [-e, "console.log(JSON.stringify([process.env.GREETING, process.env.MESSAGE, process.env.OTHER]))"] }
`,
      'bad.yml': `version: 1
name: bad
host_env: [GITHUB_TOKEN, HOME]
env: { HOME: x }
steps:
  - { id: a, tool: echo, with: { value: "\${{ rho.shell }}" } }
`,
    });
    const result = await runCli(['run', 'context.yml', 'show', '--output', 'json'], { cwd: path.join(dir, 'flows'), env: { GREETING: 'hi', OTHER: 'not passed' } });
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const printed = (id: string) => events.find((event) => event.type === 'step_progress' && event.stepId === id)?.message;
    expect(JSON.parse(printed('context'))).toEqual({
      workspace: dir,
      workflow_dir: path.join(dir, 'flows'),
      cwd: path.join(dir, 'flows'),
      os: process.platform,
      arch: process.arch,
      ci: true,
      task: 'show',
    });
    expect(JSON.parse(printed('child'))).toEqual(['hi', 'hi from show', null]);

    const bad = await runCli(['validate', 'bad.yml'], { cwd: dir });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.split('\n')).toEqual([
      'bad.yml:3:12: GITHUB_TOKEN looks like a credential; pass it through secrets: so it is masked',
      'bad.yml:3:26: HOME is also set under env:; keep one',
      'bad.yml:6:41: rho.shell does not exist; rho has workspace, workflow_dir, cwd, os, arch, ci, task',
    ]);
  });

  it('runs a sequential task’s steps in order at -j 4, while another task’s steps overlap', async () => {
    const dir = await directories.make();
    const sleep = (id: string) => `      - { id: ${id}, tool: exec, with: { command: node, args: [-e, "setTimeout(() => {}, 400)"] } }`;
    await writeFiles(dir, {
      'seq.yml': `version: 1
name: seq
policy: { allow: ["process(node)"] }
tasks:
  chain:
    sequential: true
    steps:
${['install', 'build', 'test'].map(sleep).join('\n')}
  fan:
    steps:
${['lint', 'format', 'types'].map(sleep).join('\n')}
`,
    });
    const order = async (task: string) => {
      const result = await runCli(['run', 'seq.yml', task, '-j', '4', '--output', 'json'], { cwd: dir });
      expect(result.exitCode, result.stderr).toBe(0);
      return result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .filter((event) => event.type === 'step_started' || event.type === 'step_finished')
        .map((event) => `${event.type === 'step_started' ? 'start' : 'end'} ${event.stepId}`);
    };
    expect(await order('chain')).toEqual(['start install', 'end install', 'start build', 'end build', 'start test', 'end test']);
    expect((await order('fan')).slice(0, 3)).toEqual(['start lint', 'start format', 'start types']);
    const plan = await runCli(['plan', 'seq.yml', 'chain', '-j', '4'], { cwd: dir });
    expect(plan.stdout).toMatch(/wave 1: install\n\s+wave 2: build\n\s+wave 3: test/);
  });

  it('retries a failed step, each attempt visible in events and the summary; never a denied one', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'state/.keep': '',
      'flaky.mjs': `import { existsSync, readFileSync, writeFileSync } from 'node:fs';
const count = existsSync('state/count.txt') ? Number(readFileSync('state/count.txt', 'utf8')) + 1 : 1;
writeFileSync('state/count.txt', String(count));
console.log('try ' + count);
process.exit(count < 3 ? 1 : 0);
`,
      'retry.yml': `version: 1
name: retry
defaults: { retry: { attempts: 2 } }
policy: { allow: ["process(node)", "write(state/**)"] }
steps:
  - { id: flaky, tool: exec, retry: { attempts: 4, delay: 50ms, backoff: 2 }, with: { command: node, args: [flaky.mjs] } }
  - { id: refused, tool: exec, continue_on_error: true, with: { command: sh, args: [-c, "exit 0"] } }
`,
    });
    const json = await runCli(['run', 'retry.yml', '--output', 'json'], { cwd: dir });
    expect(json.exitCode, json.stderr).toBe(0);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const flaky = events.filter((event) => event.stepId === 'flaky' && (['step_started', 'step_finished'].includes(event.type) || event.message?.startsWith('attempt')));
    expect(flaky.map((event) => [event.type, event.attempt ?? event.message ?? event.status])).toEqual([
      ['step_started', undefined],
      ['step_progress', 'attempt 1 of 4 failed: node exited with code 1 (expected 0); trying again in 50ms'],
      ['step_started', 2],
      ['step_progress', 'attempt 2 of 4 failed: node exited with code 1 (expected 0); trying again in 100ms'],
      ['step_started', 3],
      ['step_finished', 'success'],
    ]);
    expect(events.find((event) => event.type === 'step_finished' && event.stepId === 'flaky')).toMatchObject({ attempts: 3 });
    const refused = events.filter((event) => event.stepId === 'refused' && event.type.startsWith('step_'));
    expect(refused.map((event) => event.type)).toEqual(['step_finished']);
    expect(refused[0]).toMatchObject({ status: 'denied' });
    expect(refused[0].attempts).toBeUndefined();

    await writeFiles(dir, { 'state/count.txt': '1' });
    const plain = await runCli(['run', 'retry.yml', '--output', 'plain'], { cwd: dir });
    expect(plain.stdout).toContain('[flaky] ▶ flaky (exec), attempt 2 of 4');
    expect(plain.stdout).toMatch(/✔\s+flaky\s+success\s+\S+ \(2 attempts\)/);
  });

  it('passes what follows -- to the task as its args input, spliced into exec args with array inputs', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'args.yml': `version: 1
name: args
policy: { allow: ["process(node)"] }
tasks:
  test:
    inputs:
      args: { type: array }
      only: { type: array, default: [unit] }
    steps:
      - id: run
        tool: exec
        with: { command: node, args: [-e, "console.log(JSON.stringify(process.argv.slice(1)))", "\${{ inputs.only }}", --, "\${{ inputs.args }}"] }
      - { id: count, tool: echo, with: { value: "\${{ join(inputs.args, ' ') }} extra" } }
  plain:
    steps: [{ id: a, tool: echo }]
`,
    });
    const printed = async (...extra: string[]) => {
      const result = await runCli(['run', 'args.yml', 'test', '--output', 'json', ...extra], { cwd: dir });
      expect(result.exitCode, result.stderr).toBe(0);
      const events = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      return events.filter((event) => event.type === 'step_progress').map((event) => event.message);
    };
    expect(await printed('-i', 'only=e2e', '-i', 'only=lint', '--', '--watch', '-i', 'has space')).toEqual([
      '["e2e","lint","--","--watch","-i","has space"]',
      '--watch -i has space extra',
    ]);
    expect(await printed()).toEqual(['["unit","--"]', ' extra']);
    const refused = await runCli(['run', 'args.yml', 'plain', '--', 'x'], { cwd: dir });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('arguments after -- need an input to go to: declare inputs: { args: { type: array } }');
    const listed = await runCli(['list', 'args.yml'], { cwd: dir });
    // The last array input is the variadic parameter; args still takes what follows -- when only is set by name.
    expect(listed.stdout).toContain('  test [args] [only...]');
  });
});
