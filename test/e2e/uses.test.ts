import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';
import { runCliEvents } from '../support/cli-events.js';

const directories = temporaryDirectories();
const hooks = path.join(repoRoot, 'test/fixtures/hooks');
const node = JSON.stringify(process.execPath);
afterAll(() => directories.removeAll());

/** A workflow file's text: its header and `body`. */
const flow = (name: string, body: string) => `version: 1\nname: ${name}\n${body}`;

/** A task that runs task suite (a unit step, then `second`) once per Node version, `more` after it. */
const suiteFile = (second: string, more = '') =>
  flow(
    'ci',
    `tasks:
  suite:
    inputs:
      node: { type: number, required: true }
    steps:
      - { id: unit, tool: echo, with: { value: "unit on \${{ inputs.node }}" } }
      - ${second}
  test:
    steps:
      - id: test
        uses: suite
        matrix: { node: [20, 22] }
        with: { node: "\${{ matrix.node }}" }
${more}`,
  );

/** Validates `file` in a new directory holding `files`: it must be refused (exit 2); its problems, one a line. */
async function refused(files: Record<string, string>, file: string, cwd = ''): Promise<string> {
  const dir = await dirWith(files);
  const result = await runCli(['validate', file], { cwd: path.join(dir, cwd) });
  expect(result.exitCode).toBe(2);
  return result.stderr;
}

/** A new directory holding `files`. */
async function dirWith(files: Record<string, string>): Promise<string> {
  const dir = await directories.make();
  await writeFiles(dir, files);
  return dir;
}

const sameFile = flow(
  'release',
  `tasks:
  build:
    inputs:
      target: { type: string, required: true }
      level: { type: number, default: 2 }
    outputs:
      version: "\${{ steps.stamp.data }}-\${{ inputs.target }}"
    steps:
      - { id: stamp, tool: echo, with: { value: "v\${{ inputs.level }}" } }
      - { id: report, tool: echo, with: { value: "built \${{ inputs.target }} as \${{ steps.stamp.data }}" } }
  release:
    steps:
      - { id: stamp, tool: echo, with: { value: caller } }
      - id: web
        uses: build
        with: { target: web, level: 3 }
      - id: cli
        uses: build
        with: { target: "\${{ steps.stamp.data }}" }
      - { id: show, tool: echo, with: { value: "\${{ steps.web.data.version }} \${{ steps.cli.data.version }} \${{ steps.stamp.data }}" } }
`,
);

describe.concurrent('uses: steps (end to end)', () => {
  it('runs a task of the same file as a nested group with its inputs, and its outputs are the calling step’s data', async () => {
    const dir = await dirWith({ 'release.yml': sameFile });
    const run = await runCliEvents(['run', 'release.yml', 'release'], { cwd: dir });
    expect(run.exitCode, run.stderr).toBe(0);
    const started = run.events.find((event) => event.type === 'run_started')!;
    expect(started.type === 'run_started' && started.steps.map((step) => [step.id, step.kind])).toEqual([
      ['stamp', undefined],
      ['web/stamp', undefined],
      ['web/report', undefined],
      ['web', 'uses'],
      ['cli/stamp', undefined],
      ['cli/report', undefined],
      ['cli', 'uses'],
      ['show', undefined],
    ]);
    const progress = run.events.flatMap((event) => (event.type === 'step_progress' ? [[event.stepId, event.message]] : []));
    // Step ids are scoped per task: inside, steps.stamp is the called task's own step.
    expect(progress).toContainEqual(['web/report', 'built web as v3']);
    expect(progress).toContainEqual(['cli/report', 'built caller as v2']);
    expect(progress).toContainEqual(['show', 'v3-web v2-caller caller']);
    expect(run.finished.get('web')).toMatchObject({ status: 'success' });
  });

  it('refuses at validation an unknown input, a missing required one and a wrong type, each where it is written', async () => {
    const stderr = await refused(
      {
        'bad.yml': flow(
          'bad',
          `tasks:
  build:
    inputs:
      target: { type: string, required: true }
      level: { type: number, default: 2 }
    steps:
      - { id: stamp, tool: echo, with: { value: x } }
  release:
    steps:
      - id: one
        uses: build
        with: { target: web, levle: 3 }
      - id: two
        uses: build
        with: { level: 3 }
      - id: three
        uses: build
        with: { target: web, level: "3" }
      - id: four
        uses: biuld
      - { id: five, tool: echo, with: { value: "\${{ steps.one.data.version }}" } }
`,
        ),
      },
      'bad.yml',
    );
    expect(stderr).toContain('bad.yml:14:30: task build has no input "levle"; did you mean "level"?');
    expect(stderr).toContain('bad.yml:16:15: task build requires input target: give it under with:');
    expect(stderr).toContain('bad.yml:20:30: input level of task build is a number, not "3" (write it without quotes)');
    expect(stderr).toContain('bad.yml:22:15: uses: biuld: this file has no task "biuld"; did you mean "build"?');
    expect(stderr).toContain('bad.yml:23:48: warning: steps.one.data.version: task build has no output "version", so this reads as null (it declares no outputs:)');
  });

  it('refuses a task that uses itself, directly or through others, with the cycle spelled out', async () => {
    const stderr = await refused(
      {
        'loop.yml': flow(
          'loop',
          `tasks:
  a:
    steps:
      - { id: to-b, uses: b }
  b:
    steps:
      - { id: to-a, uses: a }
  self:
    steps:
      - { id: again, uses: self }
`,
        ),
      },
      'loop.yml',
    );
    expect(stderr).toContain('loop.yml:9:27: task a uses itself: a → b → a; a task cannot run inside itself');
    expect(stderr).toContain('loop.yml:12:28: task self uses itself: self → self; a task cannot run inside itself');
  });

  it('runs a task of another file, named with #TASK or its default task, and that file’s deny rules join the run’s policy', async () => {
    const dir = await dirWith({
      'main.yml': flow(
        'main',
        `policy:
  allow: ["write(**)"]
steps:
  - id: unit
    uses: ./ci/checks.yml#unit
    with: { suite: fast }
  - id: lint
    uses: ./ci/checks.yml
  - { id: show, tool: echo, with: { value: "\${{ steps.unit.data.ran }} / \${{ steps.lint.data.summary }}" } }
`,
      ),
      'ci/checks.yml': flow(
        'checks',
        `policy:
  deny: ["write(secret/**)"]
outputs:
  summary: "\${{ steps.lint.data }}"
steps:
  - { id: lint, tool: echo, with: { value: linted } }
  - { id: sneak, tool: write_file, continue_on_error: true, with: { path: secret/key, content: x, create_dirs: true } }
tasks:
  unit:
    inputs:
      suite: { type: choice, options: [fast, slow], required: true }
    outputs:
      ran: "\${{ inputs.suite }} \${{ steps.lint.data }}"
    steps:
      - { id: lint, tool: echo, with: { value: "unit lint" } }
`,
      ),
    });
    const run = await runCliEvents(['run', 'main.yml'], { cwd: dir });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.events.find((event) => event.type === 'step_progress' && event.stepId === 'show')).toMatchObject({ message: 'fast unit lint / linted' });
    // The called file's deny rule refuses what the calling file's allow would grant.
    expect(run.finished.get('lint/sneak')).toMatchObject({ status: 'denied', continueOnError: true });
    const started = run.events.find((event) => event.type === 'run_started');
    expect(started?.type === 'run_started' && started.steps.find((step) => step.id === 'unit/lint')).toMatchObject({ file: path.join('ci', 'checks.yml'), line: 17 });
  });

  it('loads and checks another file’s task named by a task written as a list, as it does for the object form', async () => {
    const files = {
      'main.yml': flow('main', 'tasks:\n  ci:\n    - uses: ./ci/checks.yml#lint\n'),
      'bad.yml': flow('bad', 'tasks:\n  ci:\n    - uses: ./ci/checks.yml#lnt\n'),
      'ci/checks.yml': flow('checks', 'tasks:\n  lint: [{ tool: echo, with: { value: linted } }]\n'),
    };
    const dir = await dirWith(files);
    const run = await runCliEvents(['run', 'main.yml', 'ci'], { cwd: dir });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.finished.get('lint/echo')).toMatchObject({ status: 'success' });
    const validated = await runCli(['validate', 'bad.yml'], { cwd: dir });
    expect(validated.exitCode).toBe(2);
    expect(validated.stderr).toContain(`bad.yml:5:13: uses: ./ci/checks.yml#lnt: ${path.join('ci', 'checks.yml')} has no task "lnt"; did you mean "lint"?`);
  });

  it('refuses a called file that tries to allow more, or set hooks, naming the file and the rule (exit 2, nothing run)', async () => {
    const dir = await dirWith({
      'main.yml': flow(
        'main',
        `steps:
  - { id: first, tool: echo, with: { value: ran } }
  - { id: greedy, uses: ./lib/greedy.yml }
`,
      ),
      'lib/greedy.yml': flow(
        'greedy',
        `hooks: {}
policy:
  allow: ["write(**)"]
steps:
  - { id: x, tool: write_file, with: { path: out.txt, content: x } }
`,
      ),
    });
    const result = await runCli(['run', 'main.yml'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    const greedy = path.join('lib', 'greedy.yml');
    expect(result.stderr).toContain(
      `${greedy}:5:11: ${greedy} is called by a uses: step and cannot allow "write(**)": an allow rule would grant more than the calling run does; a called file may only add deny and ask rules`,
    );
    expect(result.stderr).toContain(`${greedy}:3:1: ${greedy} is called by a uses: step and cannot set hooks: (hook programs are the calling run’s)`);
    expect(result.stdout).not.toContain('ran');
  });

  it('a called file’s ask rules never grant: with --yes nothing the calling run does not allow is written, run or sent', async () => {
    const received: string[] = [];
    const server = http.createServer((request, response) => {
      received.push(request.url ?? '');
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const called = flow(
        'called',
        `policy:
  ask: ["shell", "write(**)", "network"]
tasks:
  t:
    steps:
      - { id: r, tool: read_file, with: { path: README.md } }
      - { id: w, tool: write_file, continue_on_error: true, with: { path: pwned.txt, content: x } }
      - { id: s, shell: "touch shell-ran", continue_on_error: true }
      - { id: n, tool: http_request, continue_on_error: true, with: { url: "http://127.0.0.1:${port}/leak?\${{ steps.r.data.content }}" } }
`,
      );
      const dir = await dirWith({
        'README.md': 'readme-bytes',
        'main.yml': flow('main', 'policy:\n  allow: ["read(README.md)"]\nsteps:\n  - { id: lib, uses: ./lib/called.yml#t }\n'),
        'narrow.yml': flow('narrow', 'policy:\n  allow: ["read(README.md)", "write(out/**)"]\nsteps:\n  - { id: lib, uses: ./lib/asks.yml#t }\n'),
        'lib/called.yml': called,
        'lib/asks.yml': flow(
          'asks',
          'policy:\n  ask: ["write(**)"]\ntasks:\n  t:\n    steps:\n      - { id: w, tool: write_file, with: { path: out/b.txt, content: x, create_dirs: true } }\n',
        ),
      });
      const run = await runCliEvents(['run', 'main.yml', '--yes'], { cwd: dir });
      for (const id of ['lib/w', 'lib/s', 'lib/n']) expect(run.finished.get(id), id).toMatchObject({ status: 'denied' });
      expect(existsSync(path.join(dir, 'pwned.txt'))).toBe(false);
      expect(existsSync(path.join(dir, 'shell-ran'))).toBe(false);
      expect(received).toEqual([]);
      // What the calling run allows, a called ask rule turns into a question: refused without a person, granted by --yes.
      const asked = await runCliEvents(['run', 'narrow.yml'], { cwd: dir });
      expect(asked.finished.get('lib/w')).toMatchObject({ status: 'denied' });
      const approved = await runCliEvents(['run', 'narrow.yml', '--yes'], { cwd: dir });
      expect(approved.exitCode, approved.stderr).toBe(0);
      expect(existsSync(path.join(dir, 'out/b.txt'))).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a called file outside the workspace, and one that does not exist', async () => {
    const stderr = await refused(
      {
        'project/main.yml': flow(
          'main',
          `steps:
  - { id: out, uses: ../other.yml }
  - { id: gone, uses: ./missing.yml#x }
`,
        ),
        'other.yml': flow('other', 'steps: [{ id: a, tool: echo, with: { value: 1 } }]\n'),
      },
      'main.yml',
      'project',
    );
    expect(stderr).toMatch(/main\.yml:4:22: uses: \.\.\/other\.yml: the file is outside the workspace \(.*project\); a called file must be inside it/);
    expect(stderr).toContain('main.yml:5:23: uses: ./missing.yml#x: no such file');
  });

  it('names nested steps by their path in plain output and JUnit, and a matrix of a uses: step gives a group per cell', async () => {
    const dir = await dirWith({
      'ci.yml': suiteFile(
        '{ id: fail, tool: read_file, if: "${{ inputs.node == 22 }}", with: { path: missing.txt } }',
        `        fail_fast: false
      - { id: after, tool: echo, if: "\${{ always() }}", with: { value: "test \${{ steps.test.status }}" } }
`,
      ),
    });
    const plain = await runCli(['run', 'ci.yml', 'test', '--output', 'plain', '--junit', 'report.xml'], { cwd: dir });
    expect(plain.exitCode).toBe(1);
    expect(plain.stdout).toContain('[test (node=20)/unit] unit on 20');
    expect(plain.stdout).toContain('[test (node=22)/unit] unit on 22');
    expect(plain.stdout).toMatch(/\[test \(node=20\)\/fail\] ↷ skipped/);
    expect(plain.stdout).toMatch(/\[test \(node=22\)\/fail\] ✖ failure/);
    expect(plain.stdout).toMatch(/\[test \(node=22\)\] ✖ failure .*1 of 2 steps failed/);
    expect(plain.stdout).toContain('[after] test failure');
    const junit = await readFile(path.join(dir, 'report.xml'), 'utf8');
    const cases = [...junit.matchAll(/<testcase name="([^"]*)"/g)].map((match) => match[1]);
    expect(cases).toEqual(['test (node=20)/unit', 'test (node=20)/fail', 'test (node=22)/unit', 'test (node=22)/fail', 'after']);
  });

  it('shows the nested groups and their cells in rho plan and rho run --dry-run, with if: decided by the inputs given', async () => {
    const dir = await dirWith({
      'ci.yml': suiteFile('{ id: slow, tool: echo, if: "${{ inputs.node == 22 }}", with: { value: slow } }'),
    });
    for (const args of [
      ['plan', 'ci.yml', 'test'],
      ['run', 'ci.yml', 'test', '--dry-run'],
    ]) {
      const result = await runCli(args, { cwd: dir });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toContain('test (node=20) (uses suite) — wave');
      expect(result.stdout).toContain('  steps: test (node=20)/unit; test (node=20)/slow');
      expect(result.stdout).toContain('  cells: test (node=20); test (node=22)');
      expect(result.stdout).toMatch(/test \(node=20\)\/slow \(echo\) — wave \d+\n {2}if: \$\{\{ inputs.node == 22 \}\} → false with these inputs/);
      expect(result.stdout).toMatch(/test \(node=22\)\/slow \(echo\) — wave \d+\n {2}if: \$\{\{ inputs.node == 22 \}\} → true with these inputs/);
    }
    const json = JSON.parse((await runCli(['plan', 'ci.yml', 'test', '--json'], { cwd: dir })).stdout);
    expect(json.steps.find((step: { id: string }) => step.id === 'test (node=22)')).toMatchObject({
      uses: { task: 'suite', steps: ['test (node=22)/unit', 'test (node=22)/slow'] },
    });
  });

  it('gives calls inside a nested group a child delegation in their hook envelopes, so a gate can tell them apart', async () => {
    const dir = await dirWith({
      'gated.yml': flow(
        'gated',
        `policy:
  allow: ["read(**)"]
hooks:
  pre_tool_use:
    - { command: [${node}, ${JSON.stringify(path.join(hooks, 'deny-child.mjs'))}] }
  observer:
    - { command: [${node}, ${JSON.stringify(path.join(hooks, 'append-envelope.mjs'))}, ${JSON.stringify('{DIR}/observed.ndjson')}], writes: ["."] }
tasks:
  read:
    steps:
      - { id: file, tool: read_file, with: { path: data.txt } }
  release:
    steps:
      - { id: own, tool: read_file, with: { path: data.txt } }
      - { id: nested, uses: read }
`,
      ),
      'data.txt': 'hello\n',
    });
    const text = (await readFile(path.join(dir, 'gated.yml'), 'utf8')).replace('{DIR}', dir);
    await writeFiles(dir, { 'gated.yml': text });
    const run = await runCliEvents(['run', 'gated.yml', 'release'], { cwd: dir });
    expect(run.exitCode).toBe(3);
    expect(run.finished.get('own')).toMatchObject({ status: 'success' });
    expect(run.finished.get('nested/file')).toMatchObject({ status: 'denied' });
    expect(run.finished.get('nested/file')?.error?.message).toContain('a call of read run by nested');
    const observed = (await readFile(path.join(dir, 'observed.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const after = observed.filter((envelope) => envelope.kind === 'after_tool_use');
    expect(after.map((envelope) => [envelope.payload.step_id, envelope.delegation])).toEqual([
      ['own', { role: 'root' }],
      ['nested/file', { role: 'child', parent: 'nested', task: 'read' }],
    ]);
  });

  it('checks a with: value that holds an expression when the step runs, and skips the whole group when its if: is false', async () => {
    const dir = await dirWith({
      'late.yml': flow(
        'late',
        `inputs:
  mode: { type: string, default: high }
  build: { type: boolean, default: false }
tasks:
  inner:
    inputs:
      level: { type: number, required: true }
    steps:
      - { id: a, tool: echo, with: { value: "\${{ inputs.level }}" } }
  outer:
    steps:
      - { id: skipped, uses: inner, if: "\${{ inputs.build }}", with: { level: 1 } }
      - { id: typed, uses: inner, with: { level: "\${{ inputs.mode }}" } }
`,
      ),
    });
    const run = await runCliEvents(['run', 'late.yml', 'outer'], { cwd: dir });
    expect(run.exitCode).toBe(1);
    expect(run.finished.get('skipped')).toMatchObject({ status: 'skipped', reason: 'its if: condition is false' });
    expect(run.finished.get('skipped/a')).toMatchObject({ status: 'skipped', reason: 'skipped was skipped (its if: condition is false)' });
    expect(run.finished.get('typed/a')).toMatchObject({ status: 'skipped', reason: 'typed could not start' });
    expect(run.finished.get('typed')).toMatchObject({ status: 'failure', error: { message: 'step typed: input level of task inner is a number, not "high"' } });
  });

  it('keys up-to-date state and --force-step by the path id of a nested step', async () => {
    const dir = await dirWith({
      'inc.yml': flow(
        'inc',
        `policy:
  allow: ["read(src/**)", "read(.rho/**)", "write(.rho/**)"]
tasks:
  compile:
    # Used twice with the same inputs: without this it would run once.
    run: always
    steps:
      - { id: build, tool: echo, sources: ["src/**"], with: { value: built } }
  all:
    steps:
      - { id: lib, uses: compile }
      - { id: app, uses: compile }
`,
      ),
      'src/a.txt': 'a\n',
    });
    const statuses = async (...extra: string[]) => {
      const run = await runCliEvents(['run', 'inc.yml', 'all', ...extra], { cwd: dir });
      expect(run.exitCode, run.stderr).toBe(0);
      return [run.finished.get('lib/build')?.status, run.finished.get('app/build')?.status];
    };
    expect(await statuses()).toEqual(['success', 'success']);
    expect(await statuses()).toEqual(['up_to_date', 'up_to_date']);
    expect(await statuses('--force-step', 'app/build')).toEqual(['up_to_date', 'success']);
    const unknown = await runCli(['run', 'inc.yml', 'all', '--force-step', 'build'], { cwd: dir });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('--force-step: no step build');
  });

  it('runs the example workflows/tasks/uses.yml: same-file tasks with outputs, and a task of checks.yml per matrix cell', async () => {
    const run = await runCliEvents(['run', path.join(repoRoot, 'workflows/tasks/uses.yml'), 'release'], { cwd: repoRoot });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.events.find((event) => event.type === 'step_progress' && event.stepId === 'report')).toMatchObject({
      message: 'released core@2.0.0 and cli@1.0.0; checks: success',
    });
    expect([...run.finished.keys()]).toEqual([
      'core/version',
      'core',
      'cli/version',
      'cli',
      'check (node=20)/run',
      'check (node=20)',
      'check (node=22)/run',
      'check (node=22)',
      'check',
      'report',
    ]);
    // The cells of a uses: step's matrix are a CI engine's to spread, as any matrix's.
    const cells = await runCli(['matrix', 'workflows/tasks/uses.yml', 'release'], { cwd: repoRoot });
    expect(JSON.parse(cells.stdout)).toEqual({ include: [{ node: 20 }, { node: 22 }] });
    const share = await runCliEvents(['run', 'workflows/tasks/uses.yml', 'release', '--matrix', 'node=22'], { cwd: repoRoot });
    expect(share.exitCode, share.stderr).toBe(0);
    expect([...share.finished.keys()].filter((id) => id.startsWith('check'))).toEqual(['check (node=22)/run', 'check (node=22)', 'check']);
  });

  it('follows untrusted values through a called task: into its inputs, and out of its outputs', async () => {
    const stderr = await refused(
      {
        'taint.yml': flow(
          'taint',
          `inputs:
  title: { type: string, default: x, untrusted: true }
tasks:
  echo-title:
    inputs:
      text: { type: string, required: true, untrusted: true }
    outputs:
      raw: "\${{ inputs.text }}"
      fixed: done
    steps:
      - { id: say, tool: echo, with: { value: "\${{ inputs.text }}" } }
  plain:
    inputs:
      text: { type: string, required: true }
    steps:
      - { id: say, tool: echo, with: { value: "\${{ inputs.text }}" } }
  main:
    steps:
      - { id: got, uses: echo-title, with: { text: "\${{ inputs.title }}" } }
      - { id: safe, tool: shell, with: { script: "echo \${{ steps.got.data.fixed }}" } }
      - { id: unsafe, tool: shell, with: { script: "echo \${{ steps.got.data.raw }}" } }
      - { id: leak, uses: plain, with: { text: "\${{ inputs.title }}" } }
`,
        ),
      },
      'taint.yml',
    );
    expect(stderr.trim().split('\n')).toEqual([
      'taint.yml:23:52: shell script would run text from outside the workflow (steps.got.data.raw is an output of echo-title computed from untrusted values (inputs.text is marked untrusted: true)); pass it through env: instead (env: { VALUE: "${{ … }}" }) and write "$VALUE" in the script',
      'taint.yml:24:42: input text of task plain receives text from outside the workflow (inputs.title is marked untrusted: true); declare it untrusted: true in the called task, so its steps cannot run it as code',
    ]);
  });

  it('nests groups inside groups with their paths, orders them by needs:, and scopes --answer STEP.ID to the path', async () => {
    const dir = await dirWith({
      'deep.yml': flow(
        'deep',
        `tasks:
  ask:
    outputs:
      go: "\${{ steps.q.data.answers.go }}"
    steps:
      - id: q
        tool: questionnaire
        with: { questions: [{ id: go, type: confirm, question: Go on? }] }
  middle:
    outputs:
      answer: "\${{ steps.inner.data.answer }}"
    steps:
      - { id: inner, uses: leaf }
  leaf:
    outputs:
      answer: "\${{ steps.confirm.data.go }}"
    steps:
      - { id: confirm, uses: ask }
  top:
    steps:
      - { id: later, tool: echo, needs: outer, with: { value: "answer \${{ steps.outer.data.answer }}" } }
      - { id: outer, uses: middle }
`,
      ),
    });
    const refusedOrder = await runCli(['validate', 'deep.yml'], { cwd: dir });
    expect(refusedOrder.stderr).toContain('step "outer" comes later');
    const fixed = (await readFile(path.join(dir, 'deep.yml'), 'utf8')).replace(
      '      - { id: later, tool: echo, needs: outer, with: { value: "answer ${{ steps.outer.data.answer }}" } }\n      - { id: outer, uses: middle }\n',
      '      - { id: outer, uses: middle }\n      - { id: later, tool: echo, needs: outer, with: { value: "answer ${{ steps.outer.data.answer }}" } }\n',
    );
    await writeFiles(dir, { 'deep.yml': fixed });
    const run = await runCliEvents(['run', 'deep.yml', 'top', '--answer', 'outer/inner/confirm/q.go=true'], { cwd: dir });
    expect(run.exitCode, run.stderr).toBe(0);
    expect([...run.finished.keys()]).toEqual(['outer/inner/confirm/q', 'outer/inner/confirm', 'outer/inner', 'outer', 'later']);
    expect(run.events.find((event) => event.type === 'step_progress' && event.stepId === 'later')).toMatchObject({ message: 'answer true' });
    const wrong = await runCli(['run', 'deep.yml', 'top', '--answer', 'q.go=true'], { cwd: dir });
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toContain('did you mean "outer/inner/confirm/q.go"?');
  });

  it('runs a group whose if: reads statuses after an earlier failure, where a failure inside skips the rest of it', async () => {
    const dir = await dirWith({
      'cleanup.yml': flow(
        'cleanup',
        `tasks:
  tidy:
    steps:
      - { id: first, tool: echo, with: { value: tidy } }
      - { id: broken, tool: read_file, with: { path: missing.txt } }
      - { id: last, tool: echo, with: { value: never } }
  main:
    steps:
      - { id: build, tool: read_file, with: { path: missing.txt } }
      - { id: skipped, uses: tidy }
      - { id: cleanup, uses: tidy, if: "\${{ always() }}" }
      - { id: after, tool: echo, with: { value: never } }
`,
      ),
    });
    for (const jobs of ['1', '4']) {
      const run = await runCliEvents(['run', 'cleanup.yml', 'main', '-j', jobs], { cwd: dir });
      expect(run.exitCode).toBe(1);
      const outcome = (id: string) => [run.finished.get(id)?.status, run.finished.get(id)?.reason];
      expect(outcome('skipped/first')).toEqual(['skipped', 'build failed']);
      expect(outcome('cleanup/first')[0]).toBe('success');
      expect(outcome('cleanup/broken')[0]).toBe('failure');
      expect(outcome('cleanup/last')).toEqual(['skipped', 'cleanup/broken failed']);
      expect(outcome('cleanup')).toEqual(['failure', '1 of 3 steps failed']);
      expect(outcome('after')).toEqual(['skipped', 'build failed']);
    }
  });
});
