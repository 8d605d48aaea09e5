import type { CallOrder } from './call-order.js';
import type { ExecutionOutcome } from './call-execution.js';
import { failedResult, succeeded } from './call-result.js';
import { ToolError } from './errors.js';
import type { PreparedCall, ToolCall } from './prepared-call.js';
import type { Resource } from './resources.js';
import { detachRefusal } from './detach.js';
import type { Declaration } from './scheduler.js';
import { executeWithRetry, type FailedAttempt, type RetryPolicy } from './retry.js';
import type { ToolResult } from './tool.js';

/** How a submitted call ended: with a result, or withdrawn before it executed (the run stopped or failed). */
export type CallOutcome = { kind: 'result'; result: ToolResult /** How many times it executed, when retried. */; attempts?: number } | { kind: 'withdrawn' };

export interface SubmitOptions {
  /** Cancels the call while it executes. */
  signal: AbortSignal;
  /** Withdraws the call while it waits to execute (a run's first failure); defaults to `signal`. */
  waitSignal?: AbortSignal;
  /** What the call touches, replacing the tool's own declaration. */
  resources?: Declaration;
  /**
   * Asks to run the call detached: nobody waits for it, it may not ask questions. It runs
   * detached only when its tool declares `mode: 'async'` and everything it touches (the tool's
   * plan, and `resources` when given) is declared with shared access; otherwise it fails
   * (`unsupported`) without running.
   */
  detached?: boolean;
  /** Executes a failed call again, holding its slot, until it succeeds or the attempts run out. */
  retry?: RetryPolicy;
  /** Called as the call begins to execute. */
  onStarted?(): void;
  /** A detached call, once declared, no longer holds later calls back (except those that conflict with it). */
  onDetached?(): void;
  /** Called with the outcome before the call's place in the order is given back, so no later call starts ahead of it being recorded. */
  onSettled?(outcome: CallOutcome): void;
}

/** The host's half of the path: each step is one of these. */
export interface CallPathSteps {
  prepare(call: ToolCall, signal: AbortSignal): Promise<PreparedCall | ToolError>;
  authorize(prepared: PreparedCall, signal: AbortSignal): Promise<ToolError | undefined>;
  /** An attempt begins: the first, or (with `attempt`) a retry. */
  started(prepared: PreparedCall, index: number, attempt?: { attempt: number; of: number }): void;
  /** An attempt failed and another follows. */
  retrying(prepared: PreparedCall, failed: FailedAttempt): void;
  execute(prepared: PreparedCall, signal: AbortSignal, detached: boolean): Promise<ExecutionOutcome>;
  /** The call's result on its way to the caller (the host's result rewriter). */
  finish(prepared: PreparedCall, result: ToolResult, signal: AbortSignal): ToolResult | Promise<ToolResult>;
}

/**
 * The whole path of one call, the same for a workflow step, a library `invoke` and a call of
 * `start`: prepare → declare → wait for earlier calls (prepare again when one changed what this
 * one touches) → authorize → acquire a slot → execute → finish (rewrite the result). Resources are declared before
 * authorization, so a call waiting for approval holds back only later calls that conflict with
 * it, and no slot is taken until it is authorized.
 */
export async function runCallPath(steps: CallPathSteps, order: CallOrder, index: number, call: ToolCall, options: SubmitOptions): Promise<CallOutcome> {
  const { signal } = options;
  const waiting = options.waitSignal ?? signal;
  const detached = options.detached ?? false;
  const readyAt = performance.now();
  const settle = (outcome: CallOutcome, lease?: { release(): void }): CallOutcome => {
    options.onSettled?.(outcome);
    if (lease) order.finish(index, lease);
    else order.withdraw(index);
    return outcome;
  };
  const refuse = (error?: ToolError): CallOutcome =>
    settle(error && !waiting.aborted ? { kind: 'result', result: failedResult(call, error, signal, performance.now() - readyAt) } : { kind: 'withdrawn' });

  let prepared = await prepareInOrder(steps, order, index, call, waiting);
  if (waiting.aborted) return refuse();
  if (prepared instanceof ToolError) return refuse(prepared);

  const declaration = options.resources ?? prepared.resources ?? 'exclusive';
  const detachProblem = detached ? detachRefusal(prepared.tool, prepared.resources ?? 'exclusive', options.resources) : undefined;
  if (detachProblem) {
    return refuse(
      new ToolError('unsupported', `${subjectOf(call)} cannot run detached: ${detachProblem}; submit it without detached`, {
        details: { refusal: 'detached', reason: detachProblem },
      }),
    );
  }
  order.declare(index, declaration, detached);
  if (detached) {
    order.detach(index);
    options.onDetached?.();
  }

  if ((await order.waitForEarlierCalls(index, waiting)) && prepared.kind === 'planned') {
    // An earlier call that touches what this one touches has finished since it was prepared:
    // resolve it again, so it sees that call's effects (a file it created or replaced).
    prepared = await steps.prepare(call, waiting);
    if (waiting.aborted) return refuse();
    if (prepared instanceof ToolError) return refuse(prepared);
    if (!isCoveredBy(options.resources ?? prepared.resources ?? 'exclusive', declaration)) {
      const reason = 'what it touches resolved differently after the earlier calls it waited for';
      return refuse(new ToolError('conflict', `${subjectOf(call)}: ${reason}; submit it once those calls have finished`, { details: { refusal: 'changed_after_wait', reason } }));
    }
  }

  const denial = await steps.authorize(prepared, waiting);
  if (waiting.aborted) return refuse();
  if (denial) return refuse(denial);

  let lease: { release(): void };
  try {
    lease = await order.acquire(index, waiting);
  } catch {
    return settle({ kind: 'withdrawn' });
  }
  if (waiting.aborted) return settle({ kind: 'withdrawn' }, lease);

  const startedAt = performance.now();
  steps.started(prepared, index);
  options.onStarted?.();
  const attempt = async () => {
    const outcome = await steps.execute(prepared!, signal, detached);
    const durationMs = performance.now() - startedAt;
    const result = outcome.status === 'success' ? succeeded(call, outcome.output, durationMs) : failedResult(call, outcome.error, signal, durationMs);
    return outcome.log === undefined ? result : { ...result, log: outcome.log };
  };
  const { result, attempts } = options.retry
    ? await executeWithRetry(options.retry, attempt, {
        signal: waiting,
        onRetry: (failed) => steps.retrying(prepared!, failed),
        onAttempt: (number, of) => steps.started(prepared!, index, { attempt: number, of }),
      })
    : { result: await attempt(), attempts: 1 };
  const finished = await steps.finish(prepared, result, signal);
  return settle({ kind: 'result', result: finished, ...(attempts > 1 && { attempts }) }, lease);
}

/**
 * Prepares a call; when that fails on a path an earlier, still-running call may create or move,
 * prepares it again once the earlier calls no longer hold it back.
 */
async function prepareInOrder(steps: CallPathSteps, order: CallOrder, index: number, call: ToolCall, signal: AbortSignal): Promise<PreparedCall | ToolError> {
  const prepared = await steps.prepare(call, signal);
  if (!(prepared instanceof ToolError) || !mayDependOnEarlierCalls(prepared) || order.earlierReleased(index)) return prepared;
  await order.waitForEarlierReleased(index);
  return signal.aborted ? prepared : steps.prepare(call, signal);
}

/** Preparation failures that an earlier call could cure by creating or moving a path. */
function mayDependOnEarlierCalls(error: ToolError): boolean {
  return error.kind === 'not_found' || error.kind === 'path_refused';
}

/**
 * Whether the scheduler, holding `declared`, already keeps apart everything `again` conflicts
 * with: every access of `again` is to a declared resource, with no stronger mode. (A call that
 * has nothing left to create declares less than before, never more.)
 */
function isCoveredBy(again: Declaration, declared: Declaration): boolean {
  if (declared === 'exclusive') return true;
  if (again === 'exclusive') return false;
  const sameResource = (a: Resource, b: Resource) => JSON.stringify({ ...a }) === JSON.stringify({ ...b });
  return again.every((access) => declared.some((held) => sameResource(held.resource, access.resource) && (held.mode === 'exclusive' || access.mode === 'shared')));
}

function subjectOf(call: ToolCall): string {
  return call.stepId === undefined ? `call ${call.id}` : `step ${call.stepId}`;
}
