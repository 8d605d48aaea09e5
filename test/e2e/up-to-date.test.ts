import { access, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

const grants = '["read(src/**)", "read(dist/**)", "write(dist/**)", "write(*.log)", "shell"]';

/** A build step that concatenates its sources into dist/out.txt and counts its runs in runs.log. */
function buildFlow(options: { name?: string; script?: string; extra?: string } = {}): string {
  return `version: 1
name: ${options.name ?? 'incremental'}
inputs:
  banner: { default: plain }
policy:
  allow: ${grants}
steps:
  - id: build
    tool: shell
    with: { script: "${options.script ?? 'mkdir -p dist && cat src/*.txt > dist/out.txt && echo $0 ${{ inputs.banner }} >> runs.log'}" }
    sources: ["src/**/*.txt"]
    generates: ["dist/**"]
  - id: after
    tool: echo
    with: { value: done }
${options.extra ?? ''}`;
}

/** Each project's environment: a state home of its own, beside the workspace. */
const environments = new Map<string, Record<string, string>>();

async function project(files: Record<string, string> = {}): Promise<string> {
  const base = await directories.make();
  const dir = path.join(base, 'work');
  await writeFiles(dir, { 'flow.yml': buildFlow(), 'src/a.txt': 'a\n', ...files });
  environments.set(dir, { CI: 'true', XDG_STATE_HOME: path.join(base, 'state') });
  return dir;
}

/** The directory of what rho keeps for the project's workspace. */
async function stateDirectory(dir: string): Promise<string> {
  const workspaces = path.join(environments.get(dir)!.XDG_STATE_HOME!, 'rho', 'workspaces');
  const [only, ...others] = await readdir(workspaces);
  expect(others).toEqual([]);
  expect(only).toMatch(/^work-[0-9a-f]{16}$/);
  return path.join(workspaces, only!);
}

/** The state file's records (the JSON after its seal), or none when there is no state yet. */
async function stateRecords(dir: string): Promise<Record<string, unknown>> {
  const text = await readFile(path.join(await stateDirectory(dir).catch(() => dir), 'up-to-date.sealed'), 'utf8').catch(() => '\n{"steps": {}}');
  return (JSON.parse(text.slice(text.indexOf('\n') + 1)) as { steps: Record<string, unknown> }).steps;
}

/** The step_finished events of a run (--output json). */
function finished(stdout: string): Record<string, { status: string; reason?: string }> {
  const events = stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; stepId: string; status: string; reason?: string });
  return Object.fromEntries(events.filter((event) => event.type === 'step_finished').map((event) => [event.stepId, { status: event.status, reason: event.reason }]));
}

/** Three steps with sources; the last waits while hold.log exists (and says so in started.log), so a test can kill rho in it. */
const holdingFlow = `version: 1
name: holding
policy:
  allow: ${grants}
steps:
${['a', 'b'].map((id) => `  - id: ${id}\n    tool: shell\n    with: { script: "echo ${id} >> runs.log" }\n    sources: ["src/a.txt"]\n`).join('')}  - id: c
    tool: shell
    with: { script: "if [ -f hold.log ]; then echo > started.log; while [ -f hold.log ]; do sleep 0.05; done; fi; echo c >> runs.log" }
    sources: ["src/a.txt"]
`;

async function recordedSteps(dir: string): Promise<string[]> {
  return Object.keys(await stateRecords(dir)).sort();
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 50) {
    if (waited > 20_000) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts a run that holds in step c, waits until c runs and the state holds `recorded`, then kills rho outright. */
async function killInStepC(dir: string, recorded: string[], ...args: string[]): Promise<void> {
  await writeFile(path.join(dir, 'hold.log'), '');
  await rm(path.join(dir, 'started.log'), { force: true });
  const child = execa('node', [cliPath, 'run', 'flow.yml', '--output', 'json', ...args], { cwd: dir, env: environments.get(dir)!, reject: false, stdin: 'ignore' });
  try {
    await until(
      async () =>
        (await access(path.join(dir, 'started.log')).then(
          () => true,
          () => false,
        )) && String(await recordedSteps(dir)) === String(recorded),
    );
  } finally {
    child.kill('SIGKILL');
    await child;
    // The step's shell, left behind by the kill, ends once hold.log is gone.
    await rm(path.join(dir, 'hold.log'));
  }
}

const run = (dir: string, ...args: string[]) => runCli(['run', 'flow.yml', '--output', 'json', ...args], { cwd: dir, env: environments.get(dir)! });
const plan = (dir: string) => runCli(['plan', 'flow.yml'], { cwd: dir, env: environments.get(dir)! });
const runs = async (dir: string) => (await readFile(path.join(dir, 'runs.log'), 'utf8')).split('\n').filter(Boolean).length;

describe.concurrent('up-to-date checks (end to end)', () => {
  it('skips a step on the second run and runs it again when a source changes, appears or goes', async () => {
    const dir = await project();
    const first = await run(dir);
    expect(first.exitCode).toBe(0);
    expect(finished(first.stdout).build).toEqual({ status: 'success', reason: 'no successful run is recorded' });

    const second = await run(dir);
    expect(second.exitCode).toBe(0);
    expect(finished(second.stdout).build?.status).toBe('up_to_date');
    expect(finished(second.stdout).after?.status).toBe('success');
    expect(await runs(dir)).toBe(1);

    await writeFile(path.join(dir, 'src/a.txt'), 'changed\n');
    expect(finished((await run(dir)).stdout).build).toEqual({ status: 'success', reason: 'source src/a.txt changed' });
    await writeFile(path.join(dir, 'src/b.txt'), 'b\n');
    expect(finished((await run(dir)).stdout).build).toEqual({ status: 'success', reason: 'source src/b.txt was added' });
    await rm(path.join(dir, 'src/b.txt'));
    expect(finished((await run(dir)).stdout).build).toEqual({ status: 'success', reason: 'source src/b.txt was removed' });
    expect(finished((await run(dir)).stdout).build?.status).toBe('up_to_date');
    expect(await runs(dir)).toBe(4);
    expect(await readFile(path.join(dir, 'dist/out.txt'), 'utf8')).toBe('changed\n');
  });

  it('runs again when its resolved arguments change, or an output is deleted or edited', async () => {
    const dir = await project();
    await run(dir);
    expect(finished((await run(dir, '-i', 'banner=fancy')).stdout).build).toEqual({ status: 'success', reason: 'its arguments changed' });
    expect(finished((await run(dir, '-i', 'banner=fancy')).stdout).build?.status).toBe('up_to_date');
    await rm(path.join(dir, 'dist/out.txt'));
    expect(finished((await run(dir, '-i', 'banner=fancy')).stdout).build).toEqual({ status: 'success', reason: 'output dist/out.txt is missing' });
    await writeFile(path.join(dir, 'dist/out.txt'), 'tampered\n');
    expect(finished((await run(dir, '-i', 'banner=fancy')).stdout).build).toEqual({ status: 'success', reason: 'output dist/out.txt changed' });
    expect(await readFile(path.join(dir, 'dist/out.txt'), 'utf8')).toBe('a\n');
  });

  it('--force runs every step and --force-step the named one; an unknown step is a usage error', async () => {
    const dir = await project({
      'flow.yml': buildFlow({ extra: `  - id: other\n    tool: shell\n    with: { script: "echo other >> other.log" }\n    sources: ["src/a.txt"]\n` }),
    });
    await run(dir);
    const forced = finished((await run(dir, '--force')).stdout);
    expect(forced.build).toEqual({ status: 'success', reason: 'forced (--force)' });
    expect(forced.other).toEqual({ status: 'success', reason: 'forced (--force)' });
    const one = finished((await run(dir, '--force-step', 'other')).stdout);
    expect(one.build?.status).toBe('up_to_date');
    expect(one.other).toEqual({ status: 'success', reason: 'forced (--force)' });
    const unknown = await run(dir, '--force-step', 'nope');
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/--force-step: no step nope/);
  });

  it('reports a state file rho did not write as it is (edited, or corrupt), runs every step and writes the file anew', async () => {
    const dir = await project();
    await run(dir);
    const file = path.join(await stateDirectory(dir), 'up-to-date.sealed');
    expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
    const sealed = await readFile(file, 'utf8');
    for (const tampered of [sealed.replace(/"tool":"shell"/, '"tool":"echo"'), '{"version": 2, "steps": [']) {
      await writeFile(file, tampered);
      const result = await run(dir);
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toContain(
        `rho: the up-to-date state in ${file} is unreadable (it is not sealed with this user’s key for this workspace); every step with sources runs`,
      );
      expect(finished(result.stdout).build).toEqual({ status: 'success', reason: 'no successful run is recorded' });
      expect(finished((await run(dir)).stdout).build?.status).toBe('up_to_date');
    }
  });

  it('keeps the state whole when two runs of different workflows race, and both are recorded', async () => {
    const dir = await project({
      'one.yml': buildFlow({ name: 'one', script: 'echo one >> one.log' }),
      'two.yml': buildFlow({ name: 'two', script: 'echo two >> two.log' }),
    });
    const both = () => Promise.all(['one.yml', 'two.yml'].map((file) => runCli(['run', file, '--output', 'json'], { cwd: dir, env: environments.get(dir)! })));
    for (const result of await both()) expect(result.exitCode).toBe(0);
    // One rename wins; whichever lost is recorded by its next run.
    expect((await recordedSteps(dir)).some((key) => key === 'one.yml#build' || key === 'two.yml#build')).toBe(true);
    await both();
    const again = await both();
    for (const result of again) expect(finished(result.stdout).build?.status).toBe('up_to_date');
    expect(await recordedSteps(dir)).toEqual(['one.yml#build', 'two.yml#build']);
  });

  it('refuses the check when the policy does not grant reading the sources, and rho plan says why a step would run', async () => {
    const dir = await project({ 'flow.yml': buildFlow().replace(grants, '["read(dist/**)", "write(dist/**)", "write(*.log)", "shell"]') });
    const denied = await run(dir);
    expect(denied.exitCode).toBe(3);
    expect(finished(denied.stdout).build?.status).toBe('denied');
    expect(denied.stdout).toMatch(/checking whether it is up to date: .*read\(src\/\*\*\)/);

    await writeFile(path.join(dir, 'flow.yml'), buildFlow());
    const before = await plan(dir);
    expect(before.stdout).toMatch(/up to date: no — no successful run is recorded/);
    await run(dir);
    expect((await plan(dir)).stdout).toMatch(/up to date: yes/);
    await writeFile(path.join(dir, 'src/a.txt'), 'edited\n');
    expect((await plan(dir)).stdout).toMatch(/up to date: no — source src\/a\.txt changed/);
    expect(await runs(dir)).toBe(1);
  });

  it('keeps the steps that finished when rho dies mid-run, and never records the step that was running', async () => {
    const dir = await project({ 'flow.yml': holdingFlow });
    // The state is written in batches while the run goes on, not only at its end.
    await killInStepC(dir, ['flow.yml#a', 'flow.yml#b']);
    const after = finished((await run(dir)).stdout);
    expect(after.a?.status).toBe('up_to_date');
    expect(after.b?.status).toBe('up_to_date');
    expect(after.c).toEqual({ status: 'success', reason: 'no successful run is recorded' });

    // Forced with unchanged inputs, a step loses its record before it runs: killed in it, it runs next time.
    await killInStepC(dir, ['flow.yml#a', 'flow.yml#b'], '--force');
    const next = finished((await run(dir)).stdout);
    expect(next.a?.status).toBe('up_to_date');
    expect(next.c).toEqual({ status: 'success', reason: 'no successful run is recorded' });
    expect(finished((await run(dir)).stdout).c?.status).toBe('up_to_date');
  });

  it('keeps the state outside the workspace, per workspace: removing its directory clears it', async () => {
    const dir = await project();
    await run(dir);
    expect(finished((await run(dir)).stdout).build?.status).toBe('up_to_date');
    await expect(access(path.join(dir, '.rho'))).rejects.toThrow(/ENOENT/);
    await rm(await stateDirectory(dir), { recursive: true });
    expect(finished((await run(dir)).stdout).build).toEqual({ status: 'success', reason: 'no successful run is recorded' });
    // A copy of the workspace elsewhere has a state of its own.
    const copy = await project();
    environments.set(copy, environments.get(dir)!);
    expect(finished((await run(copy)).stdout).build).toEqual({ status: 'success', reason: 'no successful run is recorded' });
  });

  it('shows up_to_date in the summary and as a passed JUnit testcase with a note', async () => {
    const dir = await project();
    await run(dir);
    const result = await runCli(['run', 'flow.yml', '--output', 'plain', '--junit', 'junit.xml'], { cwd: dir, env: environments.get(dir)! });
    expect(result.stdout).toMatch(/≡ {2}build {2}up_to_date .*\(local: nothing it depends on changed since its last successful run\)/);
    expect(result.stdout).toMatch(/Result: exit 0 \(1 success, 1 up_to_date\)/);
    const junit = await readFile(path.join(dir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testcase name="build"[^>]*>\n {6}<system-out>up to date \(local\): nothing it depends on changed/);
    expect(junit).toMatch(/failures="0" errors="0"/);
    expect(junit).not.toMatch(/<skipped/);
  });
});
