import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { followingController } from '../../src/host/abort.js';
import { Policy } from '../../src/host/policy.js';
import { ToolRegistry } from '../../src/host/registry.js';
import { defineTool } from '../../src/host/tool.js';
import { ToolHost } from '../../src/host/tool-host.js';
import { Workspace } from '../../src/host/workspace.js';

/** Waits for its signal, then reports why it was stopped. */
const waitForAbort = defineTool({
  name: 'wait',
  description: 'waits until stopped',
  schema: z.strictObject({}),
  async run(_args, ctx) {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    throw ctx.signal.reason;
  },
});

const instant = defineTool({ name: 'instant', description: 'returns at once', schema: z.strictObject({}), run: async () => ({ text: 'done' }) });

let dir: string;
let host: ToolHost;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rho-call-signal-'));
  host = new ToolHost({
    workspace: await Workspace.create(dir),
    policy: new Policy({ allow: [] }),
    tools: new ToolRegistry([waitForAbort, instant]),
    environment: { env: {}, secretNames: [], processEnv: { mode: 'empty' } },
  });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

let calls = 0;
function execute(tool: string, signal: AbortSignal, timeoutMs?: number) {
  return host.invoke({ id: `${tool}-${++calls}`, tool, args: {}, ...(timeoutMs !== undefined && { timeoutMs }) }, signal);
}

describe('a call’s signal', () => {
  it('aborts at the call’s deadline, reported as a timeout', async () => {
    const result = await execute('wait', new AbortController().signal, 50);
    expect(result.status).toBe('failure');
    expect(result.error?.kind).toBe('timeout');
    expect(result.error?.message).toMatch(/did not finish within 50ms/);
  });

  it('aborts with the caller’s signal, reported as a cancellation, not a timeout', async () => {
    const caller = new AbortController();
    const running = execute('wait', caller.signal, 60_000);
    setTimeout(() => caller.abort(new Error('stop')), 20);
    const result = await running;
    expect(result.status).toBe('cancelled');
    expect(result.error?.kind).toBe('cancelled');
  });

  it('adds one listener to the caller’s signal however many calls run on it, and stops them all', async () => {
    const caller = new AbortController();
    let listeners = 0;
    const add = caller.signal.addEventListener.bind(caller.signal);
    caller.signal.addEventListener = ((...args: Parameters<typeof add>) => (listeners++, add(...args))) as typeof add;
    for (let i = 0; i < 3; i++) expect((await execute('instant', caller.signal)).status).toBe('success');
    const running = Array.from({ length: 16 }, () => execute('wait', caller.signal, 60_000));
    setTimeout(() => caller.abort(new Error('stop')), 20);
    expect((await Promise.all(running)).map((result) => result.status)).toEqual(Array(16).fill('cancelled'));
    expect(listeners).toBe(1);
  });
});

describe('followingController', () => {
  it('aborts with its parent’s reason, or at once when the parent already has', () => {
    const parent = new AbortController();
    const { controller } = followingController(parent.signal);
    parent.abort('why');
    expect(controller.signal.aborted).toBe(true);
    expect(controller.signal.reason).toBe('why');
    expect(followingController(parent.signal).controller.signal.reason).toBe('why');
  });

  it('no longer follows its parent once disposed', () => {
    const parent = new AbortController();
    const { controller, dispose } = followingController(parent.signal);
    dispose();
    parent.abort();
    expect(controller.signal.aborted).toBe(false);
  });
});
