import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, repoRoot, runCli, writeFiles } from '../support/cli.js';

/** Resource-aware parallelism through the built CLI: real processes and real files. */
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir('rho-parallel-')));
afterEach(() => cleanup());

/** The CLI starts slowly while other suites load the machine. */
const cliTimeoutMs = 60_000;

type Event = { type: string; seq: number; stepId?: string; [key: string]: unknown };

function parseEvents(stdout: string): Event[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Event);
}

/** The seq of one step's event of a type. */
function seqOf(events: readonly Event[], type: 'step_started' | 'step_finished', stepId: string): number {
  const event = events.find((candidate) => candidate.type === type && candidate.stepId === stepId);
  if (!event) throw new Error(`no ${type} event for ${stepId}`);
  return event.seq;
}

describe('parallel runs (end to end)', () => {
  // Proven by order, not by time: all eight have started before any of them finishes.
  it('runs 8 independent `sleep 1` steps at -j 8 all at once', { timeout: 120_000 }, async () => {
    const steps = Array.from({ length: 8 }, (_, n) => `  - { id: sleep${n + 1}, tool: exec, with: { command: sleep, args: ["1"] } }`);
    await writeFiles(dir, { 'flow.yml': `version: 1\nname: sleepers\npolicy:\n  allow: ["process(sleep)"]\nsteps:\n${steps.join('\n')}\n` });
    const result = await runCli(['run', 'flow.yml', '-j', '8', '--output', 'json'], { cwd: dir, timeoutMs: cliTimeoutMs });
    expect(result.exitCode).toBe(0);
    const events = parseEvents(result.stdout);
    const finished = events.find((event) => event.type === 'run_finished')!;
    expect(finished.counts).toMatchObject({ success: 8 });
    const firstFinish = Math.min(...events.filter((event) => event.type === 'step_finished').map((event) => event.seq));
    expect(events.filter((event) => event.type === 'step_started' && event.seq < firstFinish)).toHaveLength(8);
  });

  it('never overlaps writes to the same file and lands them in model order', { timeout: 120_000 }, async () => {
    const appends = (file: string, words: string[]) =>
      words.map((word) => `  - { id: ${file}_${word}, tool: write_file, with: { path: out/${file}.txt, content: "${word}\\n", mode: append, create_dirs: true } }`);
    const steps = [...appends('one', ['first', 'second', 'third']), ...appends('two', ['alpha', 'beta'])];
    // out/ exists, so the two files are independent (writes that create the same directory wait for each other).
    await writeFiles(dir, { 'out/.keep': '', 'flow.yml': `version: 1\nname: writes\nmax_parallel: 4\npolicy:\n  allow: ["write(out/**)"]\nsteps:\n${steps.join('\n')}\n` });
    const result = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, timeoutMs: cliTimeoutMs });
    expect(result.exitCode).toBe(0);
    expect(await readFile(path.join(dir, 'out/one.txt'), 'utf8')).toBe('first\nsecond\nthird\n');
    expect(await readFile(path.join(dir, 'out/two.txt'), 'utf8')).toBe('alpha\nbeta\n');
    const events = parseEvents(result.stdout);
    // Finishes are reported in model order, so two_alpha's is held until one_third's; the
    // writes to one.txt, first in the file, show their order in the events too.
    expect(seqOf(events, 'step_started', 'one_second')).toBeGreaterThan(seqOf(events, 'step_finished', 'one_first'));
    expect(seqOf(events, 'step_started', 'one_third')).toBeGreaterThan(seqOf(events, 'step_finished', 'one_second'));
    // The two files are independent: the first write to two.txt starts before the last write to one.txt finishes.
    expect(seqOf(events, 'step_started', 'two_alpha')).toBeLessThan(seqOf(events, 'step_finished', 'one_third'));
  });

  it('lets writes that create the same new directory wait for each other instead of failing', { timeout: 120_000 }, async () => {
    const steps = ['a', 'b', 'c'].map((name) => `  - { id: ${name}, tool: write_file, with: { path: new/dir/${name}.txt, content: ${name}, create_dirs: true } }`);
    await writeFiles(dir, { 'flow.yml': `version: 1\nname: dirs\nmax_parallel: 3\npolicy:\n  allow: ["write(new/**)"]\nsteps:\n${steps.join('\n')}\n` });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir, timeoutMs: cliTimeoutMs });
    expect(result.stdout).toMatch(/Result: exit 0 \(3 success\)/);
    expect(result.exitCode).toBe(0);
    for (const name of ['a', 'b', 'c']) expect(await readFile(path.join(dir, `new/dir/${name}.txt`), 'utf8')).toBe(name);
  });

  it('runs workflows/parallel.yml: independent steps together, a conflict in order, the exclusive step as a barrier', { timeout: 120_000 }, async () => {
    const result = await runCli(['run', path.join(repoRoot, 'workflows/parallel.yml'), '-w', dir, '--output', 'json'], { cwd: dir, timeoutMs: cliTimeoutMs });
    expect(result.exitCode).toBe(0);
    expect(await readFile(path.join(dir, 'out/log.txt'), 'utf8')).toBe('start\nmore\ncheckpoint\nend\n');
    expect(await readFile(path.join(dir, 'reports/lint.txt'), 'utf8')).toBe('lint passed\n');
    const events = parseEvents(result.stdout);
    const started = (id: string) => seqOf(events, 'step_started', id);
    const finished = (id: string) => seqOf(events, 'step_finished', id);
    // lint, test and log_start run together; log_more waits only for log_start (the file shows
    // the order; its finish is reported after lint's, in model order), not for the sleeps.
    for (const id of ['test', 'log_start', 'log_more']) expect(started(id)).toBeLessThan(finished('lint'));
    expect(started('report')).toBeGreaterThan(finished('lint'));
    // The exclusive checkpoint starts after every earlier step and before any later one.
    for (const id of ['lint', 'test', 'log_start', 'log_more', 'report']) expect(started('checkpoint')).toBeGreaterThan(finished(id));
    expect(started('log_end')).toBeGreaterThan(finished('checkpoint'));
    expect(events.map((event) => event.type === 'step_finished' && event.stepId).filter(Boolean)).toEqual([
      'lint',
      'test',
      'log_start',
      'log_more',
      'report',
      'checkpoint',
      'log_end',
    ]);
  });

  it('rho plan explains workflows/parallel.yml without running it', { timeout: 120_000 }, async () => {
    const result = await runCli(['plan', path.join(repoRoot, 'workflows/parallel.yml'), '-w', dir], { cwd: dir, timeoutMs: cliTimeoutMs });
    expect(result.exitCode).toBe(0);
    const text = result.stdout;
    expect(text).toContain('Plan for parallel (max_parallel 4); nothing was run.');
    expect(text).toContain(['  wave 1: lint, test, log_start', '  wave 2: log_more, report', '  wave 3: checkpoint', '  wave 4: log_end'].join('\n'));
    const section = (id: string) =>
      text
        .slice(text.indexOf(`\n${id} (`) + 1)
        .split('\n\n')[0]!
        .split('\n');
    expect(section('lint')).toEqual([
      'lint (exec) — wave 1',
      '  waits for: nothing',
      '  resources: shared directory tree src/**',
      '  confined: yes',
      // writes: [] narrows what the policy lets processes write (out/ and reports/) to nothing.
      '  writes: nothing (and its private TMPDIR)',
      '  network: none',
      '  unix sockets: none (its seccomp filter refuses them; a unix_socket rule opens them)',
      '  allow: run sleep 1 (rule process(sleep))',
    ]);
    expect(section('log_more')).toEqual([
      'log_more (write_file) — wave 2',
      '  waits for: log_start (conflict on file path)',
      // The file, and out/, which it would create if it ran first.
      '  resources: exclusive file path out/log.txt, exclusive file path out',
      '  allow: write out/log.txt (new) (rule write(out/**))',
    ]);
    expect(section('report')[1]).toBe('  waits for: lint (dependency)');
    expect(section('checkpoint')).toEqual([
      'checkpoint (checkpoint) — wave 3',
      '  waits for: report (this step runs alone: it starts after every earlier step)',
      // A module tool: plan never imports it (that would run the workflow's code), so it plans it as exclusive.
      '  resources: known at run time (planned as exclusive)',
      '  note: tool checkpoint was not inspected: plan never runs workflow code (tool modules are not loaded, MCP servers not started); its requests are known when the step runs',
    ]);
    expect(result.stderr).toContain('note: tool module ./tools/checkpoint.mjs was not loaded');
    expect(section('log_end')[1]).toBe('  waits for: checkpoint (exclusive step: a barrier in model order)');
    const dry = await runCli(['run', path.join(repoRoot, 'workflows/parallel.yml'), '-w', dir, '--dry-run'], { cwd: dir, timeoutMs: cliTimeoutMs });
    expect(dry.stdout).toBe(text);
    await expect(readFile(path.join(dir, 'out/log.txt'))).rejects.toThrow();
  });
});
