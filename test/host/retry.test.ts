import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../src/host/tool.js';
import { executeWithRetry } from '../../src/host/retry.js';

const result = (status: ToolResult['status']): ToolResult => ({ callId: 'c', status, durationMs: 1 }) as ToolResult;

function sequence(...statuses: ToolResult['status'][]) {
  let calls = 0;
  return {
    execute: async () => result(statuses[Math.min(calls++, statuses.length - 1)]!),
    calls: () => calls,
  };
}

describe('executeWithRetry', () => {
  const hooks = (signal = new AbortController().signal, log: string[] = []) => ({
    signal,
    onRetry: ({ attempt, delayMs }: { attempt: number; delayMs: number }) => log.push(`failed ${attempt}, wait ${delayMs}`),
    onAttempt: (attempt: number, of: number) => log.push(`attempt ${attempt}/${of}`),
  });

  it('tries a failure again with a growing delay, and stops at the first success', async () => {
    const calls = sequence('failure', 'failure', 'success');
    const log: string[] = [];
    const outcome = await executeWithRetry({ attempts: 5, delayMs: 2, backoff: 3 }, calls.execute, hooks(undefined, log));
    expect(outcome).toMatchObject({ attempts: 3, result: { status: 'success' } });
    expect(log).toEqual(['failed 1, wait 2', 'attempt 2/5', 'failed 2, wait 6', 'attempt 3/5']);
  });

  it('gives up after the last attempt with its failure', async () => {
    const calls = sequence('failure');
    expect(await executeWithRetry({ attempts: 3, delayMs: 0, backoff: 1 }, calls.execute, hooks())).toMatchObject({ attempts: 3, result: { status: 'failure' } });
    expect(calls.calls()).toBe(3);
  });

  it('never tries a denial, a cancellation or an interruption again', async () => {
    for (const status of ['denied', 'cancelled', 'interrupted'] as const) {
      const calls = sequence(status, 'success');
      expect((await executeWithRetry({ attempts: 3, delayMs: 0, backoff: 1 }, calls.execute, hooks())).attempts).toBe(1);
    }
  });

  it('stops waiting to try again when the run stops', async () => {
    const controller = new AbortController();
    const calls = sequence('failure', 'success');
    const pending = executeWithRetry({ attempts: 3, delayMs: 60_000, backoff: 1 }, calls.execute, hooks(controller.signal));
    setTimeout(() => controller.abort(), 5);
    expect(await pending).toMatchObject({ attempts: 1, result: { status: 'failure' } });
  });
});
