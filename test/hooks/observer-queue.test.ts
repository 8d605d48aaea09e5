import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookEnvelope } from '../../src/host/hooks/envelope.js';
import { HookLatency } from '../../src/host/hooks/latency.js';
import { ObserverQueue, type AsyncHookObserver } from '../../src/host/hooks/observer.js';
import { sampleEnvelope, sampleProcessRequest } from '../../src/host/hooks/testing.js';
import { fixture, hostWith, inlineHooks, executionsOf, requestingTool } from './harness.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rho-hooks-observers-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** An in-process observer whose deliveries wait until released (or cancelled). */
function gatedObserver(name: string, kinds?: AsyncHookObserver['kinds']) {
  const received: HookEnvelope[] = [];
  const cancelled: HookEnvelope[] = [];
  let release: () => void = () => {};
  let released = new Promise<void>((resolve) => (release = resolve));
  const observer: AsyncHookObserver = {
    name,
    kinds,
    async deliver(envelope, signal) {
      received.push(envelope);
      await new Promise<void>((resolve, reject) => {
        void released.then(resolve);
        signal.addEventListener('abort', () => {
          cancelled.push(envelope);
          reject(new Error('cancelled'));
        });
      });
    },
  };
  return {
    observer,
    received,
    cancelled,
    release() {
      release();
      released = Promise.resolve();
    },
  };
}

function queueOf(observers: AsyncHookObserver[], capacity = 256) {
  const warnings: string[] = [];
  const latency = new HookLatency();
  const queue = new ObserverQueue(observers, { capacity, latency, onWarning: (message) => warnings.push(message) });
  return { queue, warnings, latency };
}

describe('the observer queue', () => {
  it('returns at once, delivers in order, and filters by kind', async () => {
    const all = gatedObserver('all');
    const runsOnly = gatedObserver('runs', ['run_completed']);
    const { queue, latency } = queueOf([all.observer, runsOnly.observer]);
    queue.observe(sampleEnvelope('session_started'));
    queue.observe(sampleEnvelope('before_tool_use'));
    queue.observe(sampleEnvelope('after_tool_use'));
    queue.observe(sampleEnvelope('run_completed'));
    expect(all.received).toEqual([]);
    all.release();
    runsOnly.release();
    const report = await queue.drain(5000);
    expect(all.received.map((envelope) => envelope.kind)).toEqual(['session_started', 'after_tool_use', 'run_completed']);
    expect(runsOnly.received.map((envelope) => envelope.kind)).toEqual(['run_completed']);
    expect(report).toEqual({
      timedOut: false,
      observers: [
        { name: 'all', delivered: 3, failed: 0, dropped: 0 },
        { name: 'runs', delivered: 1, failed: 0, dropped: 0 },
      ],
    });
    expect(latency.report().hooks.map((entry) => [entry.name, entry.role, entry.runs])).toEqual([
      ['all', 'observer', 3],
      ['runs', 'observer', 1],
    ]);
  });

  it('drops and counts events beyond its capacity', async () => {
    const slow = gatedObserver('slow');
    const { queue, warnings } = queueOf([slow.observer], 2);
    for (let index = 0; index < 5; index++) queue.observe(sampleEnvelope('step_started'));
    slow.release();
    const report = await queue.drain(5000);
    expect(report.observers).toEqual([{ name: 'slow', delivered: 2, failed: 0, dropped: 3 }]);
    expect(warnings).toEqual(['observer slow: 3 event(s) dropped (queue full or drain deadline passed)']);
  });

  it('stops waiting at the drain deadline and cancels what is still running', async () => {
    const stuck = gatedObserver('stuck');
    const { queue } = queueOf([stuck.observer]);
    queue.observe(sampleEnvelope('step_started'));
    queue.observe(sampleEnvelope('step_finished'));
    await sleep(20);
    // The gated delivery never ends by itself: the drain returns only because its deadline passed.
    const report = await queue.drain(200);
    expect(report).toEqual({ timedOut: true, observers: [{ name: 'stuck', delivered: 0, failed: 0, dropped: 2 }] });
    expect(stuck.cancelled.map((envelope) => envelope.kind)).toEqual(['step_started']);
    queue.observe(sampleEnvelope('run_completed'));
    expect(queue.report()).toEqual([{ name: 'stuck', delivered: 0, failed: 0, dropped: 3 }]);
  });

  it('reports a failing observer as a warning and keeps going', async () => {
    let calls = 0;
    const failing: AsyncHookObserver = {
      name: 'flaky',
      kinds: undefined,
      async deliver() {
        calls += 1;
        if (calls === 1) throw new Error('disk full');
      },
    };
    const { queue, warnings } = queueOf([failing]);
    queue.observe(sampleEnvelope('step_started'));
    queue.observe(sampleEnvelope('step_finished'));
    const report = await queue.drain(5000);
    expect(report.observers).toEqual([{ name: 'flaky', delivered: 1, failed: 1, dropped: 0 }]);
    expect(warnings).toEqual(['observer flaky failed on step_started: disk full']);
  });
});

describe('an observer program that sleeps 10 s', () => {
  it('does not slow the run, and the drain deadline is respected', async () => {
    const pidDir = path.join(dir, 'pids');
    await mkdir(pidDir);
    const drainMs = 1500;
    const warnings: string[] = [];
    const hooks = await inlineHooks(
      { observer: [{ name: 'sleeper', command: fixture('slow-observer.mjs', pidDir) }], limits: { drain_timeout_ms: drainMs, observer_queue: 4 } },
      { onWarning: (message) => warnings.push(message) },
    );
    const tool = requestingTool('fake_exec', () => [sampleProcessRequest({ cwd: dir })]);
    const host = await hostWith({ root: dir, tools: [tool], policy: { allow: ['process'] }, gates: hooks.gates });

    const runStartedAt = performance.now();
    hooks.notify({ kind: 'session_started', workflow: 'slow observers', workspaceRoot: dir });
    for (let index = 0; index < 8; index++) {
      hooks.notify({ kind: 'step_started', stepId: `s${index}`, tool: 'fake_exec' });
      const result = await host.invoke({ id: `call-${index}`, tool: 'fake_exec', args: {} });
      hooks.notify({ kind: 'after_tool_use', stepId: `s${index}`, result, capability: null });
    }
    hooks.notify({ kind: 'run_completed', exitCode: 0, durationMs: performance.now() - runStartedAt, counts: { success: 8 } });
    expect(executionsOf(tool)).toBe(8);
    // Every call finished while no delivery had: the run never waited on a 10-second observer.
    expect(hooks.summary().hooks.every((entry) => entry.runs === 0)).toBe(true);

    const drainStartedAt = performance.now();
    const report = await hooks.finish();
    // The drain waited out its deadline (never less), then gave up on the delivery that was running.
    expect(performance.now() - drainStartedAt).toBeGreaterThanOrEqual(drainMs - 50);
    expect(report.timedOut).toBe(true);
    // 18 events: one was being delivered and 4 waited at the deadline; the rest were dropped when the queue was full.
    expect(report.observers).toEqual([{ name: 'sleeper', delivered: 0, failed: 0, dropped: 18 }]);
    expect(warnings).toEqual(['observer sleeper: 18 event(s) dropped (queue full or drain deadline passed)']);
    expect(hooks.summary().hooks).toMatchObject([{ name: 'sleeper', role: 'observer', dropped: 18 }]);

    // The observer that was running was killed, not left behind.
    const pids = await Promise.all((await readdir(pidDir)).map(async (file) => Number(await readFile(path.join(pidDir, file), 'utf8'))));
    expect(pids.length).toBeLessThanOrEqual(1);
    for (const pid of pids) {
      for (let tries = 0; tries < 100 && isAlive(pid); tries++) await sleep(20);
      expect(isAlive(pid)).toBe(false);
    }
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
