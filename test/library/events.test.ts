import { describe, expect, it } from 'vitest';
import { builtinTools, defineTool, maxQueuedProgress, z, type RunEvent, type RunObserver, type ToolOutput } from '../../src/index.js';
import { turns, workspacePerTest } from './support.js';

const space = workspacePerTest();

/** A tool that reports `count` progress messages, then returns. */
const chatty = defineTool({
  name: 'chatty',
  description: 'reports progress',
  schema: z.strictObject({ count: z.number().int() }),
  run(args, ctx) {
    for (let at = 0; at < args.count; at += 1) ctx.progress({ message: `p${at}` });
    return { text: 'done' };
  },
});

describe('event listeners are beside the calls, never on their path', () => {
  it('an async listener that rejects leaves no unhandled rejection and changes no outcome; it is reported once', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const warnings: string[] = [];
      const host = await space.host({ tools: [chatty], onEvent: async () => Promise.reject(new Error('store down')), onWarning: (line) => warnings.push(line) });
      const result = await host.invoke({ id: 'c', tool: 'chatty', args: { count: 3 } });
      await host.flushEvents();
      await turns();
      expect(result.status).toBe('success');
      expect(warnings).toEqual(['an event listener failed (store down); its later failures are not reported']);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('a call never waits for a listener: one whose promise never settles delays nothing and gets its next event only once it settles', async () => {
    const seen: string[] = [];
    let release: () => void = () => {};
    const host = await space.host({ tools: [chatty] });
    host.subscribe((event) => {
      seen.push(event.type);
      if (seen.length === 1) return new Promise<void>((resolve) => (release = resolve));
      return undefined;
    });
    const result = await host.invoke({ id: 'c', tool: 'chatty', args: { count: 2 } });
    await turns();
    expect(result.status).toBe('success');
    expect(seen).toEqual(['step_started']);
    release();
    await host.flushEvents();
    expect(seen).toEqual(['step_started', 'step_progress', 'step_progress']);
  });

  it('a listener is never called from inside the code that emitted the event', async () => {
    let heard = false;
    let heardWhileEmitting: boolean | undefined;
    const probe = defineTool({
      name: 'probe',
      description: 'reports progress and looks',
      schema: z.strictObject({}),
      run(_args, ctx) {
        ctx.progress({ message: 'now' });
        heardWhileEmitting = heard;
        return { text: '' };
      },
    });
    const host = await space.host({ tools: [probe], onEvent: (event) => void (event.type === 'step_progress' && (heard = true)) });
    await host.invoke({ id: 'p', tool: 'probe', args: {} });
    await host.flushEvents();
    expect(heardWhileEmitting).toBe(false);
    expect(heard).toBe(true);
  });

  it('every listener gets the events in the order they were emitted', async () => {
    const orders: string[][] = [[], []];
    const host = await space.host({ tools: [chatty] });
    host.subscribe((event) => void orders[0]!.push(event.type === 'step_progress' ? event.message : event.type));
    host.subscribe(async (event) => {
      await turns(1);
      orders[1]!.push(event.type === 'step_progress' ? event.message : event.type);
    });
    await host.invoke({ id: 'c', tool: 'chatty', args: { count: 3 } });
    await host.flushEvents();
    expect(orders[0]).toEqual(['step_started', 'p0', 'p1', 'p2']);
    expect(orders[1]).toEqual(orders[0]);
  });

  it('a listener that falls behind keeps at most maxQueuedProgress progress messages, with a notice, and every other event', async () => {
    const seen: RunEvent[] = [];
    let release: () => void = () => {};
    const host = await space.host({ tools: [chatty] });
    host.subscribe((event) => {
      seen.push(event);
      if (seen.length === 1) return new Promise<void>((resolve) => (release = resolve));
      return undefined;
    });
    await host.invoke({ id: 'first', tool: 'chatty', args: { count: 0 } });
    while (seen.length === 0) await turns(1);
    await host.invoke({ id: 'second', tool: 'chatty', args: { count: 5000 } });
    release();
    await host.flushEvents();
    const progress = seen.filter((event) => event.type === 'step_progress' && /^p\d+$/.test(event.message));
    expect(progress.length).toBe(maxQueuedProgress);
    expect(seen.filter((event) => event.type === 'step_started').map((event) => event.stepId)).toEqual(['first', 'second']);
    // The notice stands where the messages were dropped: after the ones kept.
    expect(seen.at(-1)).toMatchObject({ type: 'step_progress', stepId: 'second' });
    expect(seen.some((event) => event.type === 'step_progress' && /^\(3976 progress messages were dropped/.test(event.message))).toBe(true);
  });

  it('dispose() lets listeners catch up before it returns', async () => {
    const seen: string[] = [];
    const host = await space.host({ tools: [chatty] });
    host.subscribe(async (event) => {
      await turns(2);
      seen.push(event.type);
    });
    await host.invoke({ id: 'c', tool: 'chatty', args: { count: 1 } });
    await host.dispose();
    expect(seen).toEqual(['step_started', 'step_progress']);
  });

  it('an observer that throws or rejects changes no outcome, and is reported once', async () => {
    const warnings: string[] = [];
    const observer: RunObserver = {
      event: () => {
        throw new Error('observer bug');
      },
      callFinished: () => Promise.reject(new Error('observer down')) as never,
    };
    const host = await space.host({ tools: builtinTools(), observer, onWarning: (line) => warnings.push(line) });
    expect((await host.invoke({ id: 'e', tool: 'echo', args: { value: 1 } })).status).toBe('success');
    await turns();
    expect(warnings).toEqual(['the run observer failed (observer bug); its later failures are not reported']);
  });
});

describe('a result can be rewritten before it reaches the caller, never silently', () => {
  const redact = (output: ToolOutput) => ({ ...output, text: output.text.replaceAll('sk-secret', '***'), data: undefined });

  it('the rewriter’s output is what the caller, the listeners and later calls get, and the rewrite is announced', async () => {
    const seen: RunEvent[] = [];
    const host = await space.host({
      tools: builtinTools(),
      rewriteResult: { name: 'redactor', rewrite: ({ output }) => redact(output) },
      onEvent: (event) => void seen.push(event),
    });
    const result = await host.invoke({ id: 'e', tool: 'echo', args: { value: 'key sk-secret' } });
    await host.flushEvents();
    expect(result).toMatchObject({ status: 'success', rewrittenBy: 'redactor', output: { text: 'key ***' } });
    expect(JSON.stringify(result)).not.toContain('sk-secret');
    expect(seen).toContainEqual({ type: 'step_output_rewritten', stepId: 'e', by: 'redactor' });
  });

  it('a rewriter that keeps the output (undefined) changes nothing and announces nothing', async () => {
    const host = await space.host({ tools: builtinTools(), rewriteResult: { name: 'idle', rewrite: () => undefined } });
    const result = await host.invoke({ id: 'e', tool: 'echo', args: { value: 'plain' } });
    expect(result.output?.text).toBe('plain');
    expect(result.rewrittenBy).toBeUndefined();
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('redactor crashed');
      },
    ],
    ['returns something that is not an output', () => 'redacted' as never],
  ])('a rewriter that %s fails the call and withholds the output', async (_case, rewrite) => {
    const host = await space.host({ tools: builtinTools(), rewriteResult: { name: 'redactor', rewrite } });
    const result = await host.invoke({ id: 'e', tool: 'echo', args: { value: 'key sk-secret' } });
    expect(result.status).toBe('failure');
    expect(result.error?.message).toContain('the result rewriter redactor failed on the output of echo, so it is withheld');
    expect(JSON.stringify(result)).not.toContain('sk-secret');
  });
});
