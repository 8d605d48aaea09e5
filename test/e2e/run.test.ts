import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, writeFiles, temporaryDirectories } from '../support/cli.js';
import { runCliEvents } from '../support/cli-events.js';

const directories = temporaryDirectories();
const tempDir = () => directories.make();
afterAll(() => directories.removeAll());

/** A step fails, the next is skipped, a cleanup with always() runs. */
const failingWorkflow = `version: 1
name: failing
policy:
  allow: [read]
steps:
  - id: missing
    tool: read_file
    with: { path: no-such-file.txt }
  - id: after
    tool: echo
    with: { value: never }
  - id: cleanup
    if: \${{ always() }}
    tool: echo
    with: { value: "cleanup saw \${{ steps.missing.status }}" }
`;

// Every test has a directory of its own, so they run concurrently: most of their time is CLI start-up.
describe.concurrent('rho run (end to end)', () => {
  it('runs a successful workflow, wiring step data through expressions (exit 0)', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: ok
inputs:
  who: { type: string, default: world }
policy:
  allow: ["write(out/**)", "read(out/**)"]
steps:
  - id: write
    tool: write_file
    with: { path: out/greeting.txt, content: "hi \${{ inputs.who }}", create_dirs: true }
  - id: read
    tool: read_file
    with: { path: out/greeting.txt }
  - id: show
    tool: echo
    with: { value: "\${{ steps.read.data.content }}!" }
`,
    });
    const result = await runCli(['run', 'flow.yml', '-i', 'who=rho'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(await readFile(path.join(dir, 'out/greeting.txt'), 'utf8')).toBe('hi rho');
    expect(result.stdout).toMatch(/\[show\] ✔ success/);
    expect(result.stdout).toMatch(/Result: exit 0 \(3 success\)/);
  });

  it('exits 1 when a step fails, skips later steps and names the first failure', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'flow.yml': failingWorkflow });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/First failure: missing/);
    expect(result.stdout).toMatch(/\[after\] ↷ skipped .*missing failed/);
    expect(result.stdout).toMatch(/\[cleanup\] ✔ success/);
  });

  it('shows a failed program’s exit code in the summary, and exits with it under --exit-code program', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: tests
policy: { allow: ["process(node)"] }
steps:
  - { id: lint, exec: node -e "process.exit(3)", continue_on_error: true }
  - node -e "process.exit(101)"
`,
    });
    const plain = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir });
    expect(plain.exitCode).toBe(1);
    expect(plain.stdout).toMatch(/✖ +node +failure +\S+ \(exit code 101\)$/m);
    expect(plain.stdout).toMatch(/lint +failure +\S+ \(exit code 3\)/);
    const program = await runCliEvents(['run', 'flow.yml', '--exit-code', 'program'], { cwd: dir });
    expect(program.exitCode).toBe(101);
    expect(program.finished.get('node')).toMatchObject({ status: 'failure', exitCode: 101 });
    expect(program.events.at(-1)).toMatchObject({ type: 'run_finished', exitCode: 101 });
    // A failure that is not a program's exit code keeps rho's own.
    const denied = await runCli(['run', 'flow.yml', '--exit-code', 'program', '--deny', 'process(node)'], { cwd: dir });
    expect(denied.exitCode).toBe(3);
  });

  it('reports the failure semantics in its events: the failed step, the skip it caused, the cleanup that ran', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'flow.yml': failingWorkflow });
    const { exitCode, events, finished } = await runCliEvents(['run', 'flow.yml'], { cwd: dir });
    expect(exitCode).toBe(1);
    expect(finished.get('missing')).toMatchObject({ status: 'failure', error: { kind: 'not_found' } });
    expect(finished.get('after')).toMatchObject({ status: 'skipped', reason: 'missing failed' });
    expect(finished.get('cleanup')?.status).toBe('success');
    expect(events.filter((event) => event.type === 'step_started').map((event) => event.stepId)).toEqual(['cleanup']);
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', exitCode: 1, firstFailure: 'missing', counts: { failure: 1, skipped: 1, success: 1 } });
  });

  it('gives the workflow env, with expressions evaluated, to process steps (a step env wins)', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: env
inputs:
  who: { type: string, default: world }
env:
  GREETING: "hi \${{ inputs.who }}"
  PLACE: workflow
policy:
  env: [GREETING, PLACE]
  allow: ["process(node)"]
steps:
  - id: show
    tool: exec
    with:
      command: node
      args: ["-e", "console.log(process.env.GREETING + ' from ' + process.env.PLACE)"]
      env: { PLACE: step }
`,
    });
    const result = await runCli(['run', 'flow.yml', '-i', 'who=rho'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('[show] hi rho from step');
  });

  it('stops the whole run when --timeout expires (exit 124), cancelling what runs and what waits', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: slow
policy:
  allow: ["process(node)"]
steps:
  - { id: slow, tool: exec, with: { command: node, args: ["-e", "setTimeout(() => {}, 60000)"] } }
  - { id: after, tool: echo, with: { value: never } }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--timeout', '1500ms', '--events', 'events.ndjson'], { cwd: dir });
    expect(result.exitCode).toBe(124);
    // The step would sleep a minute: it ended because the run's limit did.
    const finished = JSON.parse((await readFile(path.join(dir, 'events.ndjson'), 'utf8')).trim().split('\n').at(-1)!);
    expect(finished).toMatchObject({ type: 'run_finished', exitCode: 124 });
    expect(result.stdout).toMatch(/\[slow\] (◌ cancelled|⏹ interrupted)/);
    expect(result.stdout).toMatch(/after .*the run timed out/);
    const badDuration = await runCli(['run', 'flow.yml', '--timeout', 'soon'], { cwd: dir });
    expect(badDuration.exitCode).toBe(2);
    expect(badDuration.stderr).toContain('"soon" is not a duration');
  });

  it('treats a failure with continue_on_error as success of the run', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: tolerant
steps:
  - id: missing
    tool: read_file
    continue_on_error: true
    with: { path: nope.txt }
  - id: next
    tool: echo
    with: { value: "\${{ steps.missing.status }}" }
`,
    });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/\[next\] ✔ success/);
  });

  it('rejects an invalid file with every problem located by line and column (exit 2)', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'bad.yml': `version: 1
name: bad
steps:
  - id: one
    tool: ech
    with: { value: 1 }
  - id: two
    tool: echo
    colour: red
`,
    });
    const result = await runCli(['run', 'bad.yml'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toContain(
      'bad.yml:9:5: unknown key "colour" (expected one of: id, name, exec, shell, env, cwd, ok_exit_codes, tool, uses, with, needs, if, async, continue_on_error, timeout, retry, matrix, platforms, fail_fast, resources, writes, sources, generates)',
    );
    expect(lines.some((line) => /^bad\.yml:5:11: unknown tool "ech"; did you mean "echo"/.test(line))).toBe(true);
    expect(result.stdout).not.toMatch(/▶/);
  });

  it('validate reports every expression problem at its line and column (exit 2)', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'bad.yml': `version: 1
name: bad
inputs:
  title: { untrusted: true }
steps:
  - id: one
    tool: echo
    with: { a: "\${{ 1 = 2 }}", b: "x \${{ tojsn(1) }}", c: "\${{ github.sha }}", d: "\${{ steps.two.output }}", e: "\${{ inputs.nope }}" }
  - id: two
    tool: shell
    with: { script: "echo \${{ inputs.title }}" }
`,
    });
    const result = await runCli(['validate', 'bad.yml'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `bad.yml:8:23: invalid expression: Unexpected symbol: '='; compare with "=="`,
      expect.stringMatching(/^bad\.yml:8:42: invalid expression: Unrecognized function: 'tojsn'; available: /),
      `bad.yml:8:64: invalid expression: Unrecognized named-value: 'github'; expressions can read inputs, steps, env, secrets, rho`,
      'bad.yml:8:83: step "two" comes later; a step can only refer to earlier steps (this also rules out cycles)',
      'bad.yml:8:113: inputs.nope is not declared under "inputs:"',
      expect.stringMatching(/^bad\.yml:11:21: shell script would run text from outside the workflow \(inputs\.title is marked untrusted: true\); pass it through env: instead/),
    ]);
  });
  it('denies a write outside the allow rules (exit 3) and names the rule that would grant it', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: denied
policy:
  allow: ["write(dist/**)"]
steps:
  - id: sneaky
    tool: write_file
    with: { path: src/index.js, content: "x", create_dirs: true }
`,
    });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toMatch(/⛔ denied/);
    expect(result.stdout).toContain("--allow 'write(src/index.js)'");
    await expect(readFile(path.join(dir, 'src/index.js'))).rejects.toThrow();
  });

  it('reports usage errors with exit 2 before running anything', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'flow.yml': 'version: 1\nname: x\ninputs:\n  tag: { type: string, required: true }\nsteps:\n  - { id: a, tool: echo, with: { value: 1 } }\n' });
    const missingInput = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(missingInput.exitCode).toBe(2);
    expect(missingInput.stderr).toContain('input tag is required: pass --input tag=VALUE');
    const badRule = await runCli(['run', 'flow.yml', '-i', 'tag=1', '--allow', 'rede(x)'], { cwd: dir });
    expect(badRule.exitCode).toBe(2);
    expect(badRule.stderr).toContain('unknown class "rede"');
    const missingFile = await runCli(['run', 'nope.yml'], { cwd: dir });
    expect(missingFile.exitCode).toBe(2);
    expect(missingFile.stderr).toContain('nope.yml:1:1: cannot read the workflow: no such file');
  });
});
