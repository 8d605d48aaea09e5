import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sampleProcessRequest } from '../../src/host/hooks/testing.js';
import { fixture, hostWith, inlineHooks, executionsOf, requestingTool } from './harness.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'rho-hooks-concurrent-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('several gates for one call', () => {
  it('run concurrently and the strictest answer wins', async () => {
    // Each of the two gates answers only once the other has started: run one after the other,
    // the first would wait for the second in vain and fail (a different denial).
    const hooks = await inlineHooks({
      pre_tool_use: [
        { name: 'meet-continue', command: fixture('meet-then.mjs', root, 'a', 'b', 'continue') },
        { name: 'meet-deny', command: fixture('meet-then.mjs', root, 'b', 'a', 'deny') },
        { name: 'quick-continue', command: fixture('continue.mjs') },
      ],
    });
    const tool = requestingTool('fake_exec', () => [sampleProcessRequest({ cwd: root })]);
    const host = await hostWith({ root, tools: [tool], policy: { allow: ['process'] }, gates: hooks.gates });
    const result = await host.invoke({ id: 'call-1', tool: 'fake_exec', args: {} });
    expect(result.status).toBe('denied');
    expect(result.error?.message).toMatch(/denied by hook meet-deny: deny after meeting/);
    expect(executionsOf(tool)).toBe(0);
    expect(hooks.summary().hooks.map((entry) => [entry.name, entry.runs, entry.failures])).toEqual([
      ['meet-continue', 1, 0],
      ['meet-deny', 1, 0],
      ['quick-continue', 1, 0],
    ]);
  });
});
