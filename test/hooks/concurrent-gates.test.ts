import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sampleProcessRequest } from '../../src/host/hooks/testing.js';
import { fixture, hostWith, inlineHooks, requestingTool } from './harness.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'rho-hooks-concurrent-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('several gates for one call', () => {
  it('run concurrently and the strictest answer wins', async () => {
    const sleepMs = 1500;
    const hooks = await inlineHooks({
      pre_tool_use: [
        { name: 'slow-continue', command: fixture('sleep-then.mjs', String(sleepMs), 'continue') },
        { name: 'slow-deny', command: fixture('sleep-then.mjs', String(sleepMs), 'deny') },
        { name: 'quick-continue', command: fixture('continue.mjs') },
      ],
    });
    const tool = requestingTool('fake_exec', () => [sampleProcessRequest({ cwd: root })]);
    const host = await hostWith({ root, tools: [tool], policy: { allow: ['process'] }, gates: hooks.gates });
    const startedAt = performance.now();
    const result = await host.invoke({ id: 'call-1', tool: 'fake_exec', args: {} });
    const elapsed = performance.now() - startedAt;
    expect(result.status).toBe('denied');
    expect(result.error?.message).toMatch(/denied by hook slow-deny: slow deny/);
    expect(tool.executions).toBe(0);
    // Two 1.5 s gates one after the other would take at least 3 s.
    expect(elapsed).toBeLessThan(2 * sleepMs);
    expect(hooks.summary().hooks.map((entry) => [entry.name, entry.runs])).toEqual([
      ['slow-continue', 1],
      ['slow-deny', 1],
      ['quick-continue', 1],
    ]);
    expect(hooks.summary().hooks[0]!.maxMs).toBeGreaterThanOrEqual(sleepMs);
  });
});
