import { randomUUID } from 'node:crypto';
import { ToolError } from '../host/errors.js';
import type { HostEvent } from '../host/events.js';
import type { PreparedCall } from '../host/prepared-call.js';
import { Scheduler, validateAsyncPlan, type Declaration } from '../host/scheduler.js';
import type { ToolResult } from '../host/tool.js';
import { interruptReason, type ToolHost } from '../host/tool-host.js';
import { evaluateDeep, evaluateTemplate, isTruthy, type ExpressionContext } from './expressions/index.js';
import { stepStatuses, type RunEvent, type StepError, type StepStatus } from './events.js';
import type { CompiledStep, CompiledWorkflow } from './model.js';
import { parseStepResources } from './step-resources.js';

/** Why a run was stopped from outside; decides the exit code (130, 124). */
export const timeoutReason = 'timeout';

export interface RunOptions {
  host: ToolHost;
  workflow: CompiledWorkflow;
  inputs: Readonly<Record<string, unknown>>;
  secrets: Readonly<Record<string, string>>;
  /** The workflow's `env:` after evaluation. */
  env: Readonly<Record<string, string>>;
  maxParallel: number;
  /** Aborted with `interruptReason` on SIGINT/SIGTERM or `timeoutReason` when `--timeout` expires. */
  signal: AbortSignal;
  emit(event: RunEvent): void;
  runId?: string;
}

export interface StepRecord {
  id: string;
  status: StepStatus;
  durationMs: number;
  error?: StepError;
  reason?: string;
  output: string;
  data: unknown;
}

export interface RunSummary {
  runId: string;
  exitCode: number;
  steps: readonly StepRecord[];
  firstFailure: string | undefined;
}

interface RunState {
  failed: boolean;
  firstFailure: string | undefined;
  firstFailureDenied: boolean;
  records: (StepRecord | undefined)[];
  done: Promise<void>[];
  /** Settles when a step no longer holds later steps back: when it finished, or once it runs detached. */
  released: Released[];
  /** Aborted when the run fails, to interrupt detached steps. */
  detached: AbortController;
}

/** Runs a compiled workflow through the host: steps start when ready, results are reported in model order. */
export async function runWorkflow(options: RunOptions): Promise<RunSummary> {
  const { workflow, host, emit } = options;
  const runId = options.runId ?? randomUUID();
  const startedAt = performance.now();
  const steps = workflow.steps;
  emit({
    type: 'run_started',
    runId,
    workflow: workflow.file.name,
    file: workflow.source.file,
    workspace: host.workspace.root,
    steps: steps.map(({ id, name, tool, index }) => ({ id, name, tool, line: workflow.source.position(['steps', index]).line })),
  });
  const unsubscribe = host.subscribe((event) => forwardHostEvent(event, emit));
  const scheduler = new Scheduler({ count: steps.length, maxParallel: options.maxParallel });
  const state: RunState = {
    failed: false,
    firstFailure: undefined,
    firstFailureDenied: false,
    records: steps.map(() => undefined),
    done: [],
    released: steps.map(() => new Released()),
    detached: new AbortController(),
  };
  const reporter = new OrderedReporter(emit);
  for (const step of steps) state.done.push(runStep(step, options, state, scheduler, reporter));
  await Promise.all(state.done);
  unsubscribe();

  const records = state.records.map((record) => record!);
  const exitCode = exitCodeOf(options.signal, state);
  const counts = Object.fromEntries(stepStatuses.map((status) => [status, records.filter((r) => r.status === status).length])) as Record<
    StepStatus,
    number
  >;
  emit({
    type: 'run_finished',
    exitCode,
    durationMs: performance.now() - startedAt,
    counts,
    ...(state.firstFailure !== undefined && { firstFailure: state.firstFailure }),
  });
  return { runId, exitCode, steps: records, firstFailure: state.firstFailure };
}

function exitCodeOf(signal: AbortSignal, state: RunState): number {
  if (signal.aborted) return signal.reason === timeoutReason ? 124 : 130;
  if (!state.failed) return 0;
  return state.firstFailureDenied ? 3 : 1;
}

async function runStep(step: CompiledStep, options: RunOptions, state: RunState, scheduler: Scheduler, reporter: OrderedReporter): Promise<void> {
  // One step at a time reads like a script: a step is prepared only after every earlier step,
  // so it sees what they did. With more slots, a step is prepared once its dependencies are done.
  const sequential = options.maxParallel === 1 || step.conditionUsesStatus;
  await Promise.all(sequential ? earlierReleased(state, step.index) : step.dependencies.map((index) => state.done[index]!));
  const startedAt = performance.now();
  const finish = (record: Omit<StepRecord, 'id' | 'durationMs' | 'output' | 'data'> & Partial<StepRecord>, continueOnError = false) => {
    const complete: StepRecord = { id: step.id, output: '', data: null, durationMs: performance.now() - startedAt, ...record };
    state.records[step.index] = complete;
    state.released[step.index]!.release();
    const failing = (complete.status === 'failure' || complete.status === 'denied') && !step.continueOnError;
    if (failing && !state.failed) {
      state.failed = true;
      state.firstFailure = step.id;
      state.firstFailureDenied = complete.status === 'denied';
      state.detached.abort(interruptReason);
    }
    reporter.finished(step.index, {
      type: 'step_finished',
      stepId: step.id,
      index: step.index,
      status: complete.status,
      durationMs: complete.durationMs,
      ...(complete.error && { error: complete.error }),
      ...(complete.reason && { reason: complete.reason }),
      ...(continueOnError && { continueOnError }),
    });
  };
  const notStarted = (): boolean => {
    if (options.signal.aborted) {
      scheduler.skip(step.index);
      finish({ status: 'cancelled', reason: options.signal.reason === timeoutReason ? 'the run timed out' : 'the run was interrupted' });
      return true;
    }
    return false;
  };
  if (notStarted()) return;

  const context = expressionContext(options, state);
  let args: unknown;
  try {
    const run = step.condition === undefined ? true : typeof step.condition === 'boolean' ? step.condition : isTruthy(evaluateTemplate(step.condition, context));
    if (state.failed && !step.conditionUsesStatus) {
      scheduler.skip(step.index);
      return finish({ status: 'skipped', reason: `${state.firstFailure} failed` });
    }
    if (!run) {
      scheduler.skip(step.index);
      return finish({ status: 'skipped', reason: 'its if: condition is false' });
    }
    args = evaluateDeep(step.with, context);
  } catch (error) {
    scheduler.skip(step.index);
    return finish({ status: 'failure', error: { kind: 'invalid_arguments', message: `step ${step.id}: ${(error as Error).message}` } });
  }

  const call = { id: `${step.id}#${step.index}`, tool: step.tool, args, stepId: step.id, ...(step.timeoutMs !== undefined && { timeoutMs: step.timeoutMs }) };
  const signal = step.async ? AbortSignal.any([options.signal, state.detached.signal]) : options.signal;
  const result = await executeStep(step, call, options, state, scheduler, reporter, signal);
  const status: StepStatus = result.status === 'interrupted' && !options.signal.aborted ? 'interrupted' : result.status;
  finish(
    {
      status,
      output: result.output?.text ?? '',
      data: result.output?.data ?? null,
      ...(result.error && { error: { kind: result.error.kind, message: result.error.message } }),
      ...(status === 'interrupted' && step.async && { reason: `${state.firstFailure ?? 'the run'} failed while it was detached` }),
    },
    step.continueOnError && (status === 'failure' || status === 'denied'),
  );
}

async function executeStep(
  step: CompiledStep,
  call: { id: string; tool: string; args: unknown; stepId: string; timeoutMs?: number },
  options: RunOptions,
  state: RunState,
  scheduler: Scheduler,
  reporter: OrderedReporter,
  signal: AbortSignal,
): Promise<ToolResult> {
  const { host } = options;
  let prepared = await host.prepare(call, signal);
  if (prepared instanceof ToolError && mayDependOnEarlierSteps(prepared) && !state.released.slice(0, step.index).every((r) => r.done)) {
    // A path an earlier, still-running step may create: prepare again once those steps are done.
    await Promise.all(earlierReleased(state, step.index));
    prepared = await host.prepare(call, signal);
  }
  if (prepared instanceof ToolError) {
    scheduler.skip(step.index);
    return host.reportFailure(call, prepared, signal);
  }
  const denial = await host.authorize(prepared, signal);
  if (denial) {
    scheduler.skip(step.index);
    return host.reportFailure(call, denial, signal);
  }
  const declaration = declarationOf(step, prepared, host.workspace.root);
  if (step.async) {
    const problem = validateAsyncPlan(declaration);
    if (problem) {
      scheduler.skip(step.index);
      return host.reportFailure(call, new ToolError('unsupported', `step ${step.id} cannot run detached: ${problem}`), signal);
    }
  }
  scheduler.declare(step.index, declaration);
  let lease;
  try {
    lease = await scheduler.acquire(step.index, signal);
  } catch {
    return host.reportFailure(call, new ToolError('cancelled', `step ${step.id} was cancelled before it started`), signal);
  }
  try {
    reporter.started({ type: 'step_started', stepId: step.id, index: step.index, tool: step.tool });
    const execution = host.execute(prepared, signal);
    if (step.async) state.released[step.index]!.release();
    return await execution;
  } finally {
    lease.release();
  }
}

function earlierReleased(state: RunState, index: number): Promise<void>[] {
  return state.released.slice(0, index).map((released) => released.promise);
}

/** Preparation failures that an earlier step could cure by creating or moving a path. */
function mayDependOnEarlierSteps(error: ToolError): boolean {
  return error.kind === 'not_found' || error.kind === 'path_refused';
}

/** A one-shot signal that a step no longer holds later steps back. */
class Released {
  done = false;
  readonly promise: Promise<void>;
  private resolve: () => void = () => {};

  constructor() {
    this.promise = new Promise<void>((resolve) => (this.resolve = resolve));
  }

  release(): void {
    this.done = true;
    this.resolve();
  }
}

function declarationOf(step: CompiledStep, prepared: PreparedCall, root: string): Declaration {
  if (step.resources) return parseStepResources(step.resources, root);
  return prepared.resources ?? 'exclusive';
}

function expressionContext(options: RunOptions, state: RunState): ExpressionContext {
  const steps: ExpressionContext['steps'] = {};
  for (const record of state.records) if (record) steps[record.id] = { status: record.status, output: record.output, data: record.data };
  return {
    inputs: { ...options.inputs },
    steps,
    env: { ...options.env },
    secrets: { ...options.secrets },
    run: { failed: state.failed, cancelled: options.signal.aborted },
  };
}

function forwardHostEvent(event: HostEvent, emit: (event: RunEvent) => void): void {
  const stepId = event.stepId;
  if (stepId === undefined) return;
  switch (event.type) {
    case 'call_progress':
      emit({ type: 'step_progress', stepId, message: event.message, ...(event.stream && { stream: event.stream }) });
      return;
    case 'approval_requested':
      emit({ type: 'approval_requested', stepId, request: event.seq, class: event.class });
      return;
    case 'approval_decided':
      emit({ type: 'approval_decided', stepId, request: event.seq, class: event.class, result: event.result, decider: event.decider });
      return;
    case 'question_asked':
      emit({ type: 'question_asked', stepId, questionIds: event.questionIds });
      return;
    case 'question_answered':
      emit({ type: 'question_answered', stepId, source: event.source });
      return;
    default:
      return;
  }
}

/**
 * Reports step_finished events in model order: a step that finishes early is held until every
 * earlier step has been reported. step_started is live, so displays show what runs now.
 */
class OrderedReporter {
  private next = 0;
  private readonly held = new Map<number, RunEvent>();

  constructor(private readonly emit: (event: RunEvent) => void) {}

  started(event: RunEvent): void {
    this.emit(event);
  }

  finished(index: number, event: RunEvent): void {
    this.held.set(index, event);
    for (let ready = this.held.get(this.next); ready; ready = this.held.get(this.next)) {
      this.held.delete(this.next++);
      this.emit(ready);
    }
  }
}
