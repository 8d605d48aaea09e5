import type { ToolResult } from '../host/tool.js';

/** How often a failed call is executed again (a workflow step's `retry:`). */
export interface RetryPolicy {
  /** Most attempts in all, the first included (≥ 2 to retry at all). */
  attempts: number;
  /** Wait before the second attempt. */
  delayMs: number;
  /** Each later wait is the one before times this. */
  backoff: number;
}

/** An attempt that failed, with another to follow after `delayMs`. */
export interface FailedAttempt {
  attempt: number;
  of: number;
  result: ToolResult;
  delayMs: number;
}

export interface RetryHooks {
  /** Stops retrying (the run stopped, or another step failed): the last result stands. */
  signal: AbortSignal;
  onRetry(failed: FailedAttempt): void;
  /** Another attempt starts now. */
  onAttempt(attempt: number, of: number): void;
}

/**
 * Runs a call, and again while it fails, up to the policy's attempts. Only a failure is tried
 * again: a denial, a cancellation or an interruption would end the same way, and a success is
 * done. Returns the last result and how many attempts it took.
 */
export async function executeWithRetry(policy: RetryPolicy | undefined, execute: () => Promise<ToolResult>, hooks: RetryHooks): Promise<{ result: ToolResult; attempts: number }> {
  let result = await execute();
  let attempt = 1;
  const of = policy?.attempts ?? 1;
  let delayMs = policy?.delayMs ?? 0;
  while (result.status === 'failure' && attempt < of && !hooks.signal.aborted) {
    hooks.onRetry({ attempt, of, result, delayMs });
    if (!(await wait(delayMs, hooks.signal))) break;
    attempt += 1;
    hooks.onAttempt(attempt, of);
    result = await execute();
    delayMs = Math.round(delayMs * (policy?.backoff ?? 1));
  }
  return { result, attempts: attempt };
}

/** Waits `ms`; false when the signal aborts first. */
function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (completed: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
      resolve(completed);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', aborted, { once: true });
  });
}
