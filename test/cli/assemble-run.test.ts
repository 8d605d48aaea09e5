import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { assembleRun } from '../../src/cli/assemble-run.js';
import type { CliEnvironment } from '../../src/cli/environment.js';
import { runSettingsOf, type RunFlagValues } from '../../src/cli/run-settings.js';
import { HostError } from '../../src/host/errors.js';
import { exitCodes } from '../../src/host/exit-codes.js';
import { temporaryDirectories } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

const environment: CliEnvironment = { env: {}, ci: true, stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false, githubActions: false, stepSummaryFile: undefined };
const secret = 'hunter2-secret';

function capture() {
  const sink = { text: '', write: (text: string) => void (sink.text += text) };
  return sink;
}

function settings(flags: RunFlagValues) {
  return runSettingsOf('run', { 'no-logs': true, ...flags }, { file: undefined }, environment);
}

describe('a run assembled from its settings', () => {
  it('masks every event once on its way to every display and report, and the echo of a scripted decision with it', async () => {
    const dir = await directories.make();
    const eventsFile = path.join(dir, 'events.ndjson');
    const stdout = capture();
    const stderr = capture();
    const code = await assembleRun(settings({ output: 'json', events: eventsFile }), { stdout, stderr }, { stop: new AbortController().signal }, async (run) => {
      run.masker.add(secret);
      expect(run.emit({ type: 'step_progress', stepId: 's', message: `wrote out-${secret}.txt` })).toBeUndefined();
      const request = { class: 'network', method: 'GET', scheme: 'https', host: 'example.org', path: '/' } as const;
      run.ports.onScriptedDecision?.({
        callId: 'c',
        stepId: 's',
        tool: 'fetch',
        source: 'built-in',
        request: request as never,
        answeredBy: { flag: 'approve', rule: `network(out-${secret}.txt)` },
      });
      return exitCodes.success;
    });
    expect(code).toBe(exitCodes.success);
    const events = await readFile(eventsFile, 'utf8');
    for (const channel of [stdout.text, stderr.text, events]) {
      expect(channel).toContain('out-***.txt');
      expect(channel).not.toContain(secret);
    }
  });

  it('holds events back while stdout’s reader is behind when every byte is asked for, and only then', async () => {
    /** A stdout whose reader takes nothing until `release()`. */
    function slowStdout() {
      const held: (() => void)[] = [];
      const stream = new Writable({
        highWaterMark: 16,
        write: (_chunk, _encoding, done) => void held.push(done),
      });
      const release = () => {
        for (const done of held.splice(0)) done();
      };
      return { stream, release };
    }
    const event = { type: 'step_progress', stepId: 's', message: 'a line longer than the buffer holds', stream: 'stdout' } as const;
    const unbounded = slowStdout();
    await assembleRun(settings({ output: 'json', 'output-limit': 'none' }), { stdout: unbounded.stream, stderr: capture() }, {}, async (run) => {
      const waiting = run.emit(event);
      expect(waiting).toBeInstanceOf(Promise);
      let drained = false;
      void waiting!.then(() => (drained = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(drained).toBe(false);
      unbounded.release();
      await waiting;
      return exitCodes.success;
    });
    const bounded = slowStdout();
    await assembleRun(settings({ output: 'json' }), { stdout: bounded.stream, stderr: capture() }, {}, async (run) => {
      expect(run.emit(event)).toBeUndefined();
      expect(bounded.stream.writableNeedDrain).toBe(true);
      bounded.release();
      return exitCodes.success;
    });
  });

  it('exits as the table says for an error of rho’s, and throws a bug on', async () => {
    const stderr = capture();
    const stop = new AbortController().signal;
    const usage = await assembleRun(settings({ output: 'plain' }), { stdout: capture(), stderr }, { stop }, async () => {
      throw new HostError('usage', 'no such input');
    });
    expect(usage).toBe(exitCodes.usage);
    expect(stderr.text).toBe('rho: no such input\n');
    const dir = await directories.make();
    const junit = path.join(dir, 'rho.xml');
    await expect(
      assembleRun(settings({ output: 'plain', junit }), { stdout: capture(), stderr: capture() }, { stop }, async () => {
        throw new TypeError('a bug');
      }),
    ).rejects.toThrow('a bug');
    // The reports are closed on the way out: the JUnit report is written.
    expect(await readFile(junit, 'utf8')).toContain('<testsuites');
  });

  it('refuses a report it cannot open before anything runs', async () => {
    const dir = await directories.make();
    const stderr = capture();
    let ran = false;
    const code = await assembleRun(settings({ output: 'plain', junit: path.join(dir, 'missing', '\0', 'x.xml') }), { stdout: capture(), stderr }, {}, async () => {
      ran = true;
      return exitCodes.success;
    });
    expect(code).toBe(exitCodes.usage);
    expect(ran).toBe(false);
    expect(stderr.text).toMatch(/^rho: cannot write the JUnit report \(--junit\)/);
  });

  it('stops the run when its caller stops it', async () => {
    const stop = new AbortController();
    const code = await assembleRun(settings({ output: 'plain' }), { stdout: capture(), stderr: capture() }, { stop: stop.signal }, async (run) => {
      stop.abort('changed');
      expect(run.signal.aborted).toBe(true);
      expect(run.signal.reason).toBe('changed');
      return exitCodes.interrupted;
    });
    expect(code).toBe(exitCodes.interrupted);
  });

  it('are parsed once from the flags, as each command takes them', () => {
    const flags = { approve: ['write(dist/**)'], yes: true, hooks: 'hooks.toml', label: ['team=docs'], logs: 'logs', timeout: '5m', junit: 'report.xml' };
    const run = runSettingsOf('run', flags, { file: 'rho.yml', task: 'build' }, environment);
    expect(run.choices).toMatchObject({ task: 'build', approve: ['write(dist/**)'], yes: true });
    expect(run.hooks).toEqual({ file: path.resolve('hooks.toml'), labels: { team: 'docs' } });
    expect([run.logs, run.timeoutMs, run.reports?.files.map((report) => [report.format.flag, report.file])]).toEqual([
      { mode: 'dir', dir: 'logs' },
      300_000,
      [['junit', 'report.xml']],
    ]);
    // A plan approves nothing, shows no events and consults hooks only when --hooks asks for them.
    const plan = runSettingsOf('plan', flags, { file: 'rho.yml' }, environment);
    expect([plan.choices.approve, plan.choices.yes, plan.reports, plan.logs, plan.timeoutMs]).toEqual([[], false, undefined, { mode: 'off' }, undefined]);
    expect(runSettingsOf('plan', {}, { file: 'rho.yml' }, environment).hooks).toBeUndefined();
    expect(runSettingsOf('tools', {}, { file: undefined }, environment).hooks).toEqual({ file: undefined, labels: {} });
  });

  it('refuses a flag value that does not parse when the settings are made', () => {
    expect(() => settings({ timeout: '5x' })).toThrow(HostError);
    expect(() => settings({ 'output-limit': 'lots' })).toThrow(/--output-limit/);
    expect(() => settings({ label: ['__proto__=x'] })).toThrow(/host label key "__proto__" is invalid/);
  });
});
