import { describe, expect, it } from 'vitest';
import { HostError } from '../../src/host/errors.js';
import { exclusive, opaqueKey, shared, type ResourceAccess } from '../../src/host/resources.js';
import { z } from 'zod';
import { detachRefusal } from '../../src/host/detach.js';
import { Scheduler } from '../../src/host/scheduler.js';
import { defineTool } from '../../src/host/tool.js';
import { FakeCalls, settle } from './scheduler-harness.js';

const writes = (path: string): ResourceAccess[] => [exclusive({ kind: 'path', path })];
const reads = (path: string): ResourceAccess[] => [shared({ kind: 'path', path })];
const independent: ResourceAccess[] = [];

describe('Scheduler options', () => {
  it.each([0, -1, 1.5, Number.NaN])('refuses max_parallel %s', (maxParallel) => {
    expect(() => new Scheduler({ count: 3, maxParallel })).toThrow(HostError);
    expect(() => new Scheduler({ count: 3, maxParallel })).toThrow(/at least 1/);
  });
});

describe('slots', () => {
  it('starts independent calls together up to max_parallel and never more', async () => {
    const calls = new FakeCalls(4, 2);
    for (let i = 0; i < 4; i += 1) calls.ready(i, independent);
    await settle();
    expect(calls.log).toEqual(['start 0', 'start 1']);
    expect(calls.scheduler.waitReason(2)).toEqual({ kind: 'slot' });

    calls.finish(1);
    await settle();
    expect(calls.log).toEqual(['start 0', 'start 1', 'finish 1', 'start 2']);
    calls.finish(0);
    await settle();
    expect(calls.log.slice(-2)).toEqual(['finish 0', 'start 3']);
  });

  it('gives a freed slot to the lowest ready index, whatever order calls asked in', async () => {
    const calls = new FakeCalls(5, 2);
    for (let i = 0; i < 5; i += 1) calls.declare(i, independent);
    for (const i of [4, 3, 2, 1, 0]) calls.acquire(i);
    await settle();
    expect(calls.log).toEqual(['start 4', 'start 3']);
    calls.finish(4);
    await settle();
    calls.finish(3);
    await settle();
    expect(calls.log).toEqual(['start 4', 'start 3', 'finish 4', 'start 0', 'finish 3', 'start 1']);
  });

  it('holds no slot for a call that is declared but has not asked to start', async () => {
    const calls = new FakeCalls(2, 1);
    calls.declare(0, reads('/w/a'));
    calls.ready(1, reads('/w/b'));
    await settle();
    expect(calls.log).toEqual(['start 1']);
  });

  it('holds no slot for a call awaiting approval, which is not declared yet', async () => {
    const calls = new FakeCalls(3, 1);
    calls.ready(0, independent);
    calls.ready(1, independent);
    await settle();
    calls.finish(0);
    await settle();
    expect(calls.log).toEqual(['start 0', 'finish 0', 'start 1']);
    expect(calls.scheduler.waitReason(2)).toBeUndefined();
  });

  it('treats a second release of one lease as a no-op', async () => {
    const calls = new FakeCalls(3, 1);
    for (let i = 0; i < 3; i += 1) calls.ready(i, independent);
    await settle();
    calls.lease(0)?.release();
    calls.lease(0)?.release();
    await settle();
    expect(calls.log).toEqual(['start 0', 'start 1']);
  });
});

describe('conflicts and model order', () => {
  it('runs conflicting calls one after the other in model order, and others beside them', async () => {
    const calls = new FakeCalls(3, 3);
    calls.ready(0, writes('/w/a'));
    calls.ready(1, reads('/w/b'));
    calls.ready(2, writes('/w/a'));
    await settle();
    expect(calls.log).toEqual(['start 0', 'start 1']);
    expect(calls.scheduler.waitReason(2)).toEqual({ kind: 'conflict', index: 0, resourceKind: 'path' });

    calls.finish(1);
    await settle();
    expect(calls.running).toEqual(new Set([0]));
    calls.finish(0);
    await settle();
    expect(calls.log).toEqual(['start 0', 'start 1', 'finish 1', 'finish 0', 'start 2']);
  });

  it('lets shared readers of one file run together', async () => {
    const calls = new FakeCalls(3, 3);
    for (let i = 0; i < 3; i += 1) calls.ready(i, reads('/w/a'));
    await settle();
    expect(calls.running).toEqual(new Set([0, 1, 2]));
  });

  it('makes a write inside a tree wait for an earlier exclusive use of the tree', async () => {
    const calls = new FakeCalls(2, 2);
    calls.ready(0, [exclusive({ kind: 'tree', path: '/w/dist' })]);
    calls.ready(1, writes('/w/dist/app.js'));
    await settle();
    expect(calls.scheduler.waitReason(1)).toEqual({ kind: 'conflict', index: 0, resourceKind: 'path' });
    expect(calls.log).toEqual(['start 0']);
  });

  it('keeps model order when the later conflicting call asks to start first', async () => {
    const calls = new FakeCalls(2, 2);
    calls.declare(0, writes('/w/a'));
    calls.ready(1, reads('/w/a'));
    await settle();
    expect(calls.log).toEqual([]);
    calls.acquire(0);
    await settle();
    calls.finish(0);
    await settle();
    expect(calls.log).toEqual(['start 0', 'finish 0', 'start 1']);
  });

  it('does not let keys of different owners conflict', async () => {
    const calls = new FakeCalls(2, 2);
    calls.ready(0, [exclusive(opaqueKey('git', 'index'))]);
    calls.ready(1, [exclusive(opaqueKey('npm', 'index'))]);
    await settle();
    expect(calls.log).toEqual(['start 0', 'start 1']);
  });

  it('blocks later calls until every earlier call is declared', async () => {
    const calls = new FakeCalls(3, 3);
    calls.ready(2, independent);
    calls.ready(0, independent);
    await settle();
    expect(calls.log).toEqual(['start 0']);
    expect(calls.scheduler.waitReason(2)).toEqual({ kind: 'undeclared', index: 1 });
    calls.declare(1, independent);
    await settle();
    expect(calls.log).toEqual(['start 0', 'start 2']);
  });

  it('unblocks later calls when an earlier call is skipped', async () => {
    const calls = new FakeCalls(3, 3);
    calls.ready(1, writes('/w/a'));
    calls.ready(2, writes('/w/a'));
    await settle();
    expect(calls.log).toEqual([]);
    calls.scheduler.skip(0);
    await settle();
    expect(calls.log).toEqual(['start 1']);
    expect(calls.scheduler.waitReason(2)).toEqual({ kind: 'conflict', index: 1, resourceKind: 'path' });
  });

  it('lets a declared call that is then skipped stop holding later ones', async () => {
    const calls = new FakeCalls(2, 2);
    calls.declare(0, writes('/w/a'));
    calls.ready(1, writes('/w/a'));
    await settle();
    calls.scheduler.skip(0);
    await settle();
    expect(calls.log).toEqual(['start 1']);
  });
});

describe('barriers', () => {
  it('runs an exclusive call alone, after everything before it and before everything after it', async () => {
    const calls = new FakeCalls(4, 4);
    calls.ready(0, independent);
    calls.ready(1, reads('/w/a'));
    calls.ready(2, 'exclusive');
    calls.ready(3, independent);
    await settle();
    expect(calls.log).toEqual(['start 0', 'start 1']);
    expect(calls.scheduler.waitReason(2)).toEqual({ kind: 'barrier', index: 1 });
    expect(calls.scheduler.waitReason(3)).toEqual({ kind: 'barrier', index: 2 });

    calls.finish(1);
    await settle();
    expect(calls.scheduler.waitReason(2)).toEqual({ kind: 'barrier', index: 0 });
    calls.finish(0);
    await settle();
    expect(calls.running).toEqual(new Set([2]));
    calls.finish(2);
    await settle();
    expect(calls.log).toEqual(['start 0', 'start 1', 'finish 1', 'finish 0', 'start 2', 'finish 2', 'start 3']);
  });

  it('waits for an earlier call that is declared but has not started', async () => {
    const calls = new FakeCalls(2, 2);
    calls.declare(0, independent);
    calls.ready(1, 'exclusive');
    await settle();
    expect(calls.log).toEqual([]);
    calls.acquire(0);
    await settle();
    calls.finish(0);
    await settle();
    expect(calls.log).toEqual(['start 0', 'finish 0', 'start 1']);
  });
});

describe('aborting a wait', () => {
  it('rejects with the signal reason, takes no slot and frees none', async () => {
    const calls = new FakeCalls(3, 1);
    for (let i = 0; i < 3; i += 1) calls.ready(i, independent);
    await settle();
    const reason = new Error('interrupted');
    calls.abort(1, reason);
    await settle();
    expect(calls.errors.get(1)).toBe(reason);
    expect(calls.log).toEqual(['start 0', 'rejected 1']);
    expect(calls.scheduler.waitReason(2)).toEqual({ kind: 'slot' });
    calls.finish(0);
    await settle();
    expect(calls.log).toEqual(['start 0', 'rejected 1', 'finish 0', 'start 2']);
  });

  it('withdraws the call so later conflicting calls no longer wait for it', async () => {
    const calls = new FakeCalls(3, 3);
    calls.ready(0, writes('/w/a'));
    calls.ready(1, writes('/w/a'));
    calls.ready(2, writes('/w/a'));
    await settle();
    calls.abort(1);
    await settle();
    expect(calls.scheduler.waitReason(2)).toEqual({ kind: 'conflict', index: 0, resourceKind: 'path' });
    calls.finish(0);
    await settle();
    expect(calls.log).toEqual(['start 0', 'rejected 1', 'finish 0', 'start 2']);
    expect(() => calls.scheduler.skip(1)).not.toThrow();
  });

  it('rejects at once when the signal is already aborted', async () => {
    const calls = new FakeCalls(2, 1);
    calls.declare(0, independent);
    const controller = new AbortController();
    controller.abort('stop');
    await expect(calls.scheduler.acquire(0, controller.signal)).rejects.toBe('stop');
    calls.ready(1, independent);
    await settle();
    expect(calls.log).toEqual(['start 1']);
  });

  it('leaves a started call alone when its signal aborts later', async () => {
    const calls = new FakeCalls(2, 1);
    calls.ready(0, independent);
    calls.ready(1, independent);
    await settle();
    calls.abort(0);
    await settle();
    expect(calls.log).toEqual(['start 0']);
    calls.finish(0);
    await settle();
    expect(calls.log).toEqual(['start 0', 'finish 0', 'start 1']);
  });
});

describe('wait reasons', () => {
  it('is undefined for calls that are not waiting', async () => {
    const calls = new FakeCalls(3, 2);
    calls.ready(0, independent);
    await settle();
    expect(calls.scheduler.waitReason(0)).toBeUndefined();
    calls.finish(0);
    expect(calls.scheduler.waitReason(0)).toBeUndefined();
    expect(calls.scheduler.waitReason(2)).toBeUndefined();
  });

  it('explains a declared call that has not asked yet', () => {
    const calls = new FakeCalls(2, 1);
    calls.declare(0, writes('/w/a'));
    calls.declare(1, writes('/w/a'));
    expect(calls.scheduler.waitReason(1)).toEqual({ kind: 'conflict', index: 0, resourceKind: 'path' });
    expect(calls.scheduler.waitReason(0)).toBeUndefined();
  });
});

describe('misuse', () => {
  it('refuses to acquire an undeclared call, to declare twice, or to skip a running call', async () => {
    const calls = new FakeCalls(2, 1);
    expect(() => calls.scheduler.acquire(0, new AbortController().signal)).toThrow(/cannot acquire call 0: it is pending/);
    calls.ready(0, independent);
    expect(() => calls.scheduler.declare(0, independent)).toThrow(/cannot declare call 0/);
    await settle();
    expect(() => calls.scheduler.skip(0)).toThrow(/cannot skip call 0: it is running/);
    expect(() => calls.scheduler.declare(5, independent)).toThrow(/outside this schedule/);
  });
});

describe('determinism', () => {
  it('starts calls in the same order for the same sequence of events', async () => {
    const script = async (): Promise<string[]> => {
      const calls = new FakeCalls(6, 2);
      const plan = [writes('/w/a'), reads('/w/b'), 'exclusive', reads('/w/a'), writes('/w/b'), independent] as const;
      for (const i of [1, 0, 3, 2, 5, 4]) calls.ready(i, plan[i]!);
      for (let step = 0; step < 6; step += 1) {
        await settle();
        const lowest = Math.min(...calls.running);
        calls.finish(lowest);
      }
      return calls.log;
    };
    const first = await script();
    expect(first.filter((line) => line.startsWith('start'))).toHaveLength(6);
    expect(await script()).toEqual(first);
  });
});

const asyncTool = defineTool({
  name: 'watch',
  description: 'd',
  schema: z.strictObject({}),
  executionPolicy: 'resource-aware',
  mode: 'async',
  prepare: () => ({ requests: [], resources: [], execute: () => ({ text: '' }) }),
});

describe('detached calls', () => {
  it('hold their slot but do not delay later calls that touch nothing of theirs exclusively', async () => {
    const calls = new FakeCalls(4, 3);
    const detachedPlan = reads('/w/log');
    expect(detachRefusal(asyncTool, detachedPlan, undefined)).toBeUndefined();
    calls.ready(0, detachedPlan);
    calls.ready(1, reads('/w/log'));
    calls.ready(2, writes('/w/other'));
    calls.ready(3, writes('/w/log'));
    await settle();
    calls.finish(1);
    calls.finish(2);
    await settle();
    expect(calls.log).toEqual(['start 0', 'start 1', 'start 2', 'finish 1', 'finish 2']);
    expect(calls.scheduler.waitReason(3)).toEqual({ kind: 'conflict', index: 0, resourceKind: 'path' });
    calls.finish(0);
    await settle();
    expect(calls.log.at(-1)).toBe('start 3');
  });

  it('refuses detached plans that are exclusive or take exclusive access, by the tool or by the caller, naming no path', () => {
    expect(detachRefusal(asyncTool, 'exclusive', undefined)).toMatch(/runs exclusively .*shared access only/);
    expect(detachRefusal(asyncTool, [shared({ kind: 'session' }), exclusive({ kind: 'path', path: '/home/alice/x' })], undefined)).toMatch(
      /exclusive access to its file path; a detached call may take shared access only/,
    );
    expect(detachRefusal(asyncTool, reads('/w/log'), writes('/home/alice/x'))).toMatch(/exclusive access to its file path/);
    expect(detachRefusal(asyncTool, [exclusive({ kind: 'path', path: '/home/alice/x' })], undefined)).not.toContain('alice');
  });

  it('needs both keys: a tool that does not declare async mode never runs detached, whatever the caller declares', () => {
    const syncTool = defineTool({
      name: 'tail',
      description: 'd',
      schema: z.strictObject({}),
      executionPolicy: 'resource-aware',
      prepare: () => ({ requests: [], resources: [], execute: () => ({ text: '' }) }),
    });
    expect(detachRefusal(syncTool, reads('/w/log'), reads('/w/log'))).toMatch(/does not declare mode "async"/);
  });
});
