import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());
const example = path.join(repoRoot, 'workflows', 'matrix.yml');

const events = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
const finished = (stdout: string) =>
  Object.fromEntries(
    events(stdout)
      .filter((event) => event.type === 'step_finished')
      .map((event) => [event.stepId, event]),
  );

/** A matrix whose cell `n=2` fails; the rest succeed. */
const failing = (failFast: boolean) => `version: 1
name: cells
policy: { allow: ["process(node)"] }
steps:
  - id: check
    tool: exec
    matrix: { n: [1, 2, 3] }
    fail_fast: ${failFast}
    with: { command: node, args: [-e, "process.exit(process.argv[1] === 'n2' ? 1 : 0)", "n\${{ matrix.n }}"] }
  - id: after
    tool: echo
    with: { value: "\${{ steps.check.status }}" }
  - id: always
    if: \${{ always() }}
    tool: echo
    with: { value: "\${{ steps.check.status }} \${{ toJSON(steps.check.data[1].matrix) }}" }
`;

describe.concurrent('matrix (end to end)', () => {
  it('runs workflows/matrix.yml: a cell per combination, include and exclude applied, the combined status read later', async () => {
    const dir = await directories.make();
    const result = await runCli(['run', example, 'test', '-w', dir, '--output', 'json', '--junit', 'junit.xml'], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    const all = events(result.stdout);
    expect(all[0].steps.map((step: { id: string; kind?: string }) => [step.id, step.kind])).toEqual([
      ['test (node=18, mode=unit)', undefined],
      ['test (node=20, mode=unit)', undefined],
      ['test (node=20, mode=e2e)', undefined],
      ['test (node=22, mode=unit, coverage=true)', undefined],
      ['test (node=22, mode=e2e, coverage=true)', undefined],
      ['test', 'matrix'],
      ['coverage', undefined],
      ['report', undefined],
    ]);
    const output = all.filter((event) => event.type === 'step_progress').map((event) => `${event.stepId}: ${event.message}`);
    expect(output).toContain('test (node=20, mode=e2e): e2e tests on node 20');
    expect(output).toContain('report: tests: success');
    expect(all.at(-1)).toMatchObject({ type: 'run_finished', counts: { success: 6, skipped: 1 } });
    // JUnit: a testcase per cell; the matrix step repeats them, so it is none.
    const junit = await readFile(path.join(dir, 'junit.xml'), 'utf8');
    expect(junit).toContain('<testsuites name="rho" tests="7" failures="0"');
    expect(junit).toContain('<testcase name="test (node=20, mode=e2e)" classname="matrix.test (node=20, mode=e2e)"');
    expect(junit).not.toContain('<testcase name="test" ');
  });

  it('fail_fast (the default) stops the cells not yet started; the matrix fails and so does the run', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'cells.yml': failing(true) });
    const result = await runCli(['run', 'cells.yml', '--output', 'json'], { cwd: dir });
    expect(result.exitCode).toBe(1);
    const steps = finished(result.stdout);
    expect(steps['check (n=1)'].status).toBe('success');
    expect(steps['check (n=2)'].status).toBe('failure');
    expect(steps['check (n=3)']).toMatchObject({ status: 'skipped', reason: 'check (n=2) failed' });
    expect(steps.check).toMatchObject({ status: 'failure', reason: '1 of 3 cells failed' });
    expect(steps.after.status).toBe('skipped');
    expect(events(result.stdout).at(-1)).toMatchObject({ firstFailure: 'check (n=2)' });
  });

  it('fail_fast: false lets every cell run; the run fails once the matrix does', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'cells.yml': failing(false) });
    const result = await runCli(['run', 'cells.yml', '--output', 'json'], { cwd: dir });
    expect(result.exitCode).toBe(1);
    const steps = finished(result.stdout);
    expect([1, 2, 3].map((n) => steps[`check (n=${n})`].status)).toEqual(['success', 'failure', 'success']);
    expect(steps.check.status).toBe('failure');
    expect(steps.after.status).toBe('skipped');
    const printed = events(result.stdout).find((event) => event.type === 'step_progress' && event.stepId === 'always');
    expect(printed.message).toBe('failure {\n  "n": 2\n}');
    expect(events(result.stdout).at(-1)).toMatchObject({ firstFailure: 'check' });
  });

  it('rho matrix prints the cells for a CI matrix, and --matrix runs only the cells that match', async () => {
    const dir = await directories.make();
    const printed = await runCli(['matrix', example, 'test'], { cwd: dir });
    expect(printed.exitCode, printed.stderr).toBe(0);
    const { include } = JSON.parse(printed.stdout) as { include: Record<string, unknown>[] };
    expect(include).toHaveLength(5);
    const cell = include.find((entry) => entry.node === 20 && entry.mode === 'e2e')!;
    const flags = Object.entries(cell).flatMap(([name, value]) => ['--matrix', `${name}=${value}`]);
    const result = await runCli(['run', example, 'test', '-w', dir, '--output', 'json', ...flags], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(Object.keys(finished(result.stdout))).toEqual(['test (node=20, mode=e2e)', 'test', 'coverage', 'report']);

    const unknown = await runCli(['run', example, 'test', '--matrix', 'python=3'], { cwd: dir });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('--matrix python: no matrix step of this task has that name (matrix names: node, mode, coverage)');
    // A value spelt as the CI engine spells it (20.x), which no cell has, runs nothing and says which cells there are.
    const mismatch = await runCli(['run', example, 'test', '--matrix', 'node=20.x'], { cwd: dir });
    expect(mismatch.exitCode).toBe(2);
    expect(mismatch.stderr).toContain('--matrix node=20.x matches no cell; the cells are: test (node=18, mode=unit), test (node=20, mode=unit), test (node=20, mode=e2e)');
    expect(mismatch.stdout).toBe('');
    const none = await runCli(['matrix', path.join(repoRoot, 'workflows', 'tasks.yml'), 'greet'], { cwd: dir });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('task greet has no step with matrix:');
  });

  it('rho plan shows the cells, the matrix step, and evaluates an if: that reads only inputs', async () => {
    const dir = await directories.make();
    const plan = await runCli(['plan', example, 'test', '-w', dir, '-i', 'coverage=true', '--json'], { cwd: dir });
    expect(plan.exitCode, plan.stderr).toBe(0);
    const steps = JSON.parse(plan.stdout).steps as { id: string; cells?: string[]; conditionValue?: boolean; preparation: string }[];
    expect(steps.find((step) => step.id === 'test')).toMatchObject({ preparation: 'group', cells: expect.arrayContaining(['test (node=18, mode=unit)']) });
    expect(steps.find((step) => step.id === 'coverage')).toMatchObject({ conditionValue: true, preparation: 'prepared' });
    const text = await runCli(['plan', example, 'test', '-w', dir], { cwd: dir });
    expect(text.stdout).toContain('  if: ${{ inputs.coverage }} → false');
    expect(text.stdout).toContain('note: its if: is false for these inputs: it would be skipped');
  });

  it('refuses a matrix with no cells, matrix.* outside a matrix and an unknown matrix name', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'bad.yml': `version: 1
name: bad
steps:
  - { id: a, tool: echo, matrix: { n: [1] , exclude: [{ n: 1 }] } }
  - { id: b, tool: echo, with: { value: "\${{ matrix.n }}" } }
  - { id: c, tool: echo, matrix: { n: [1] }, with: { value: "\${{ matrix.m }}" } }
  - { id: d, tool: echo, fail_fast: false }
`,
    });
    const result = await runCli(['validate', 'bad.yml'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.split('\n')).toEqual([
      'bad.yml:4:34: the matrix has no cells: exclude removed every combination',
      "bad.yml:5:46: invalid expression: Unrecognized named-value: 'matrix'; expressions can read inputs, steps, env, secrets, rho",
      "bad.yml:6:61: matrix.m is not a name of this step's matrix (n)",
      'bad.yml:7:37: fail_fast applies to a step with matrix:',
    ]);
  });
});
