import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliPath, jsonEvents, makeTempDir, repoRoot, writeFiles } from '../support/cli.js';
import { eventLineValidator } from '../support/event-schema.js';
import { isAlive, processesIn } from '../support/processes.js';

const scripts = path.join(repoRoot, 'test', 'fixtures', 'scripts');
const node = JSON.stringify(process.execPath);

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir()));
afterEach(() => cleanup());

/** Starts `rho run` without waiting for it, with plain line output to read as it comes. */
function startRun(workflow: string, ...flags: string[]): ResultPromise<{ cwd: string; env: Record<string, string>; reject: false; stdin: 'ignore'; timeout: number }> {
  return execa('node', [cliPath, 'run', workflow, '--output', 'plain', ...flags], {
    cwd: dir,
    env: { CI: 'true', NO_COLOR: '1' },
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
  });
}

/** Resolves with the first stdout line matching `pattern` (the CLI prints progress lines live). */
function waitForLine(run: ReturnType<typeof startRun>, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let pending = '';
    const onData = (chunk: Buffer) => {
      pending += chunk.toString();
      for (const line of pending.split('\n')) {
        const match = pattern.exec(line);
        if (!match) continue;
        run.stdout.off('data', onData);
        resolve(match);
        return;
      }
    };
    run.stdout.on('data', onData);
    void run.then((result) => reject(new Error(`rho exited before printing ${pattern}:\n${result.stdout}\n${result.stderr}`)));
  });
}

const treeLine = /child (\d+) grandchild (\d+)/;

function treeWorkflow(extraSteps = ''): string {
  return `version: 1
name: tree
policy:
  allow: [process]
steps:
  - id: tree
    tool: exec
    with: { command: ${node}, args: [${JSON.stringify(path.join(scripts, 'fork-grandchild.mjs'))}] }
${extraSteps}`;
}

describe('rho run with processes (end to end)', () => {
  it('ends a hanging command at its timeout: exit 1, the step timed out, its tree gone', async () => {
    await writeFiles(dir, { 'flow.yml': `${treeWorkflow()}    timeout: 2s\n` });
    const run = startRun('flow.yml');
    await waitForLine(run, /▶ tree/);
    await waitForLine(run, treeLine);
    // As the host sees them: a confined step prints the pids of its own PID namespace.
    const tree = processesIn(dir).filter((pid) => pid !== run.pid);
    // The tree ignores SIGTERM and never ends by itself: the run ends only through the timeout.
    const result = await run;
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/\[tree\] ✖ failure .*did not finish within 2s/);
    expect(tree.length).toBeGreaterThanOrEqual(2);
    expect(tree.filter(isAlive)).toEqual([]);
  });

  it('on SIGINT cancels the running step, kills its tree and background processes, and exits 130', async () => {
    const forever = JSON.stringify(path.join(scripts, 'forever.mjs'));
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: interrupted
policy:
  allow: [process]
steps:
  - id: server
    tool: process_start
    with: { command: ${node}, args: [${forever}], name: web }
  - id: tree
    tool: exec
    with: { command: ${node}, args: [${JSON.stringify(path.join(scripts, 'fork-grandchild.mjs'))}] }
`,
    });
    const run = startRun('flow.yml', '--events', 'events.ndjson');
    await waitForLine(run, treeLine);
    const started = processesIn(dir).filter((pid) => pid !== run.pid);
    // The background server, the step's child and its grandchild.
    expect(started.length).toBeGreaterThanOrEqual(3);
    run.kill('SIGINT');
    const result = await run;
    expect(result.exitCode).toBe(130);
    expect(result.stdout).toMatch(/tree.*interrupted/);
    expect(started.filter(isAlive)).toEqual([]);
    // The events file is complete and valid even for an interrupted run.
    const events = jsonEvents(await readFile(path.join(dir, 'events.ndjson'), 'utf8'));
    const validate = await eventLineValidator();
    for (const event of events) expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', exitCode: 130 });
    expect(events.find((e) => e.type === 'step_finished' && e.stepId === 'tree')).toMatchObject({ status: 'interrupted' });
  });

  it('stops and reports a background process still running when the run ends', async () => {
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: background
policy:
  allow: [process]
steps:
  - id: server
    tool: process_start
    with: { command: ${node}, args: [${JSON.stringify(path.join(scripts, 'forever.mjs'))}], name: web }
  - id: ready
    tool: process_output
    with: { process_id: web, wait_for: ready }
`,
    });
    const run = startRun('flow.yml');
    await waitForLine(run, /\[ready\] ▶/);
    const started = processesIn(dir).filter((pid) => pid !== run.pid);
    const result = await run;
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(/background process web \(.*forever\.mjs\) was still running when the run ended; it was stopped/);
    expect(started.length).toBeGreaterThanOrEqual(1);
    expect(started.filter(isAlive)).toEqual([]);
  });

  it('on a second SIGINT exits at once, still killing the children', async () => {
    await writeFiles(dir, { 'flow.yml': treeWorkflow() });
    const run = startRun('flow.yml', '--events', 'events.ndjson');
    await waitForLine(run, treeLine);
    const tree = processesIn(dir).filter((pid) => pid !== run.pid);
    run.kill('SIGINT');
    // Within the 2 s SIGTERM grace the first interrupt waits out for a tree that ignores SIGTERM.
    setTimeout(() => run.kill('SIGINT'), 100);
    const result = await run;
    expect(result.exitCode).toBe(130);
    // Forced: the run was never wound up, so it never reported its end (one interrupt does).
    const events = jsonEvents(await readFile(path.join(dir, 'events.ndjson'), 'utf8'));
    expect(events.map((event) => event.type)).not.toContain('run_finished');
    expect(tree.length).toBeGreaterThanOrEqual(2);
    await expect.poll(() => tree.filter(isAlive), { timeout: 2000 }).toEqual([]);
  });

  it('keeps rho under 200 MB RSS while a step prints 1 GiB, and truncates the output', async () => {
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: flood
policy:
  allow: [process]
steps:
  - id: flood
    tool: exec
    with: { command: ${node}, args: [${JSON.stringify(path.join(scripts, 'print-gigabyte.mjs'))}] }
    timeout: 90s
  - id: size
    tool: echo
    with: { value: "kept \${{ steps.flood.data.truncated }}" }
`,
    });
    const run = startRun('flow.yml');
    let peakKb = 0;
    const sampler = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${run.pid}/status`, 'utf8');
        peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
      } catch {
        // The CLI has exited; the last sample stands.
      }
    }, 50);
    const result = await run.finally(() => clearInterval(sampler));
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('[size] kept true');
    expect(peakKb).toBeGreaterThan(0);
    expect(peakKb / 1024).toBeLessThan(200);
  }, 120_000);
});
