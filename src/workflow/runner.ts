import { randomUUID } from 'node:crypto';
import { ToolError } from '../host/errors.js';
import type { HostEvent } from '../host/events.js';
import type { PreparedCall, ToolCall } from '../host/prepared-call.js';
import type { Resource } from '../host/resources.js';
import { Scheduler, validateAsyncPlan, type Declaration, type SlotLease } from '../host/scheduler.js';
import type { ToolResult } from '../host/tool.js';
import { interruptReason, type ToolHost } from '../host/tool-host.js';
import { evaluateDeep, evaluateTemplate, isTruthy, type ExpressionContext } from './expressions/index.js';
import { stepStatuses, type RunEvent, type StepError, type StepStatus } from './events.js';
import type { CompiledStep, CompiledWorkflow } from './model.js';
import { DeclaredPrefix } from './declared-prefix.js';
import { OrderedReporter } from './ordered-reporter.js';
import { secretOutsideEnvironment } from './secret-arguments.js';
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
  /** What expressions see of the finished steps, added to as each is recorded (rebuilding it per step would cost steps²). */
  finished: ExpressionContext['steps'];
  /** Settles when a step has finished (its result is recorded). */
  done: Promise<void>[];
  /** Which steps, in model order, have declared their resources to the scheduler or will never run. */
  declared: DeclaredPrefix;
  /** Settles when a step no longer holds later steps back: when it finished, or once it runs detached. */
  released: Released[];
  /** Aborted at the run's first failure: steps that have not started stop waiting, detached steps are interrupted. */
  failure: AbortController;
  /** The run stopped or failed: what steps that have not started wait on. Derived once, as a signal per step costs ≈ 30 µs. */
  stopWaiting: AbortSignal;
}

/** A step that never executed because the run failed or was stopped while it waited. */
const notStarted = Symbol('not started');

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
    steps: steps.map(({ id, name, tool, line }) => ({ id, name, tool, line })),
  });
  const unsubscribe = host.subscribe((event) => forwardHostEvent(event, emit));
  const scheduler = new Scheduler({ count: steps.length, maxParallel: options.maxParallel });
  const failure = new AbortController();
  const state: RunState = {
    failed: false,
    firstFailure: undefined,
    firstFailureDenied: false,
    records: steps.map(() => undefined),
    finished: {},
    done: [],
    declared: new DeclaredPrefix(steps.length),
    released: steps.map(() => new Released()),
    failure,
    stopWaiting: AbortSignal.any([options.signal, failure.signal]),
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
  // At -j1 the step before waited for its own predecessors, so waiting for it alone is enough
  // (and keeps a long run linear: waiting on every earlier step costs steps² promise reactions).
  const sequential = options.maxParallel === 1 || step.conditionUsesStatus;
  const earlier = options.maxParallel === 1 ? state.released.slice(Math.max(0, step.index - 1), step.index).map((r) => r.promise) : earlierReleased(state, step.index);
  await Promise.all(sequential ? earlier : step.dependencies.map((index) => state.done[index]!));
  // A step's duration is how long it executed; one that never executed counts from when it was ready.
  let startedAt = performance.now();
  const started = () => {
    startedAt = performance.now();
    reporter.started({ type: 'step_started', stepId: step.id, index: step.index, tool: step.tool });
    if (step.async) {
      // Detached: later steps and later results no longer wait for it.
      state.released[step.index]!.release();
      reporter.detached(step.index);
    }
  };
  // A step is finished (recorded, its failure known to the run, its event reported) before it
  // gives its place in the scheduler back, so no later step starts ahead of that.
  const finish = (record: Omit<StepRecord, 'id' | 'durationMs' | 'output' | 'data'> & Partial<StepRecord>, continueOnError = false) => {
    const complete: StepRecord = { id: step.id, output: '', data: null, durationMs: performance.now() - startedAt, ...record };
    const failing = (complete.status === 'failure' || complete.status === 'denied') && !step.continueOnError;
    if (failing && !state.failed) {
      state.failed = true;
      state.firstFailure = step.id;
      state.firstFailureDenied = complete.status === 'denied';
      state.failure.abort(interruptReason);
    }
    state.records[step.index] = complete;
    state.finished[complete.id] = { status: complete.status, output: complete.output, data: complete.data };
    state.released[step.index]!.release();
    state.declared.mark(step.index);
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
  const stopped = () => ({ status: 'cancelled' as const, reason: options.signal.reason === timeoutReason ? 'the run timed out' : 'the run was interrupted' });
  /** Ends a step that will never execute. */
  const endUnstarted = (record: Parameters<typeof finish>[0]) => {
    finish(record);
    scheduler.skip(step.index);
  };
  if (options.signal.aborted) return endUnstarted(stopped());

  const context = expressionContext(options, state);
  let args: unknown;
  try {
    const run = step.condition === undefined ? true : typeof step.condition === 'boolean' ? step.condition : isTruthy(evaluateTemplate(step.condition, context));
    if (state.failed && !step.conditionUsesStatus) return endUnstarted({ status: 'skipped', reason: `${state.firstFailure} failed` });
    if (!run) return endUnstarted({ status: 'skipped', reason: 'its if: condition is false' });
    args = evaluateDeep(step.with, context);
    const runsProcesses = options.host.tools.get(step.tool)?.classes.some((c) => c === 'process' || c === 'shell') ?? false;
    const leak = runsProcesses ? secretOutsideEnvironment(args, Object.values(options.secrets)) : undefined;
    if (leak) {
      throw new Error(
        `argument ${leak} holds a secret; secrets reach processes only through the environment: set env: { NAME: "\${{ secrets.NAME }}" } and read $NAME`,
      );
    }
  } catch (error) {
    return endUnstarted({ status: 'failure', error: { kind: 'invalid_arguments', message: `step ${step.id}: ${(error as Error).message}` } });
  }

  const call = { id: `${step.id}#${step.index}`, tool: step.tool, args, stepId: step.id, ...(step.timeoutMs !== undefined && { timeoutMs: step.timeoutMs }) };
  const { result, release } = await executeStep(step, call, options, state, scheduler, started);
  try {
    if (result === notStarted) {
      finish(options.signal.aborted ? stopped() : { status: 'skipped', reason: `${state.firstFailure} failed` });
    } else {
      const record = executedRecord(step, result, options.signal, state);
      finish(record, step.continueOnError && (record.status === 'failure' || record.status === 'denied'));
    }
  } finally {
    release();
  }
}

/** How an executed step is recorded. A detached step the run stopped (failure, timeout, interrupt) is `interrupted`. */
function executedRecord(step: CompiledStep, result: ToolResult, signal: AbortSignal, state: RunState) {
  const stoppedByRun = signal.aborted || state.failed;
  const stoppedWhileDetached = step.async && stoppedByRun && (result.status === 'interrupted' || result.status === 'cancelled');
  return {
    status: stoppedWhileDetached ? ('interrupted' as const) : result.status,
    output: result.output?.text ?? '',
    data: result.output?.data ?? null,
    ...(result.error && { error: { kind: result.error.kind, message: result.error.message } }),
    ...(stoppedWhileDetached && { reason: detachedStopReason(signal, state) }),
  };
}

function detachedStopReason(signal: AbortSignal, state: RunState): string {
  if (!signal.aborted) return `${state.firstFailure} failed while it ran detached`;
  return signal.reason === timeoutReason ? 'the run timed out while it ran detached' : 'the run was interrupted while it ran detached';
}

/** How a step's call ended, and how to give its place in the scheduler back once it is recorded. */
interface StepOutcome {
  result: ToolResult | typeof notStarted;
  release(): void;
}

/**
 * Prepare → declare resources → wait for earlier steps → authorize → acquire a slot → execute.
 * Resources are declared before authorization, so a step waiting for approval holds back only
 * the later steps that conflict with it, and no slot is taken until it is authorized. Until it
 * executes, the step gives up (`notStarted`) when the run is stopped or, unless its `if:` reads
 * step statuses, when another step fails.
 */
async function executeStep(
  step: CompiledStep,
  call: ToolCall,
  options: RunOptions,
  state: RunState,
  scheduler: Scheduler,
  started: () => void,
): Promise<StepOutcome> {
  const { host } = options;
  const root = host.workspace.root;
  // At -j1 one step waits at a time, so all can share the run's signal; with more slots many
  // wait at once, and listeners piling up on one signal would make each addition slower.
  const waiting = step.conditionUsesStatus
    ? options.signal
    : options.maxParallel === 1
      ? state.stopWaiting
      : AbortSignal.any([options.signal, state.failure.signal]);
  const neverRuns = (error?: ToolError): StepOutcome => ({
    result: error && !waiting.aborted ? host.reportFailure(call, error, options.signal) : notStarted,
    release: () => scheduler.skip(step.index),
  });
  let prepared = await host.prepare(call, waiting);
  if (prepared instanceof ToolError && mayDependOnEarlierSteps(prepared) && !state.released.slice(0, step.index).every((r) => r.done)) {
    // A path an earlier, still-running step may create: prepare again once those steps are done.
    await Promise.all(earlierReleased(state, step.index));
    if (!waiting.aborted) prepared = await host.prepare(call, waiting);
  }
  if (waiting.aborted) return neverRuns();
  if (prepared instanceof ToolError) return neverRuns(prepared);
  const declaration = declarationOf(step, prepared, root);
  const detachProblem = step.async ? validateAsyncPlan(declaration) : undefined;
  if (detachProblem) return neverRuns(new ToolError('unsupported', `step ${step.id} cannot run detached: ${detachProblem}`));
  scheduler.declare(step.index, declaration);
  state.declared.mark(step.index);

  if ((await waitForEarlierSteps(step.index, scheduler, state, waiting)) && prepared.kind === 'planned') {
    // An earlier step that touches what this one touches has finished since it was prepared:
    // resolve it again, so it sees that step's effects (a file it created or replaced).
    prepared = await host.prepare(call, waiting);
    if (waiting.aborted) return neverRuns();
    if (prepared instanceof ToolError) return neverRuns(prepared);
    if (!isCoveredBy(declarationOf(step, prepared, root), declaration)) {
      return neverRuns(
        new ToolError('conflict', `step ${step.id}: what it touches resolved differently after the earlier steps it waited for; make it depend on them with needs:`),
      );
    }
  }
  const denial = await host.authorize(prepared, waiting);
  if (waiting.aborted) return neverRuns();
  if (denial) return neverRuns(denial);

  let lease: SlotLease;
  try {
    lease = await scheduler.acquire(step.index, waiting);
  } catch {
    return { result: notStarted, release: () => {} };
  }
  const release = () => lease.release();
  if (waiting.aborted) return { result: notStarted, release };
  const signal = step.async ? AbortSignal.any([options.signal, state.failure.signal]) : options.signal;
  started();
  try {
    return { result: await host.execute(prepared, signal, { detached: step.async }), release };
  } catch (fault) {
    release();
    throw fault;
  }
}

/**
 * Waits, holding no slot, until every earlier step is declared and none that conflicts with
 * this one is unfinished (what is left to wait for is a slot). Returns whether it waited for a
 * conflicting or exclusive step, whose effects the step has not seen. Each wait is for the
 * nearest earlier step that holds this one back, so a chain of conflicts costs one wait a step.
 */
async function waitForEarlierSteps(index: number, scheduler: Scheduler, state: RunState, signal: AbortSignal): Promise<boolean> {
  await state.declared.before(index);
  let waitedForConflict = false;
  for (let reason = scheduler.waitReason(index); reason && reason.kind !== 'slot' && !signal.aborted; reason = scheduler.waitReason(index)) {
    waitedForConflict = true;
    await state.done[reason.index];
  }
  return waitedForConflict;
}

/**
 * Whether the scheduler, holding `declared`, already keeps apart everything `again` conflicts
 * with: every access of `again` is to a declared resource, with no stronger mode. (A step that
 * has nothing left to create declares less than before, never more.)
 */
function isCoveredBy(again: Declaration, declared: Declaration): boolean {
  if (declared === 'exclusive') return true;
  if (again === 'exclusive') return false;
  const sameResource = (a: Resource, b: Resource) => JSON.stringify({ ...a }) === JSON.stringify({ ...b });
  return again.every((access) =>
    declared.some((held) => sameResource(held.resource, access.resource) && (held.mode === 'exclusive' || access.mode === 'shared')),
  );
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
  return {
    inputs: { ...options.inputs },
    // Shared, not copied: a step evaluates its expressions at once, before any other step finishes.
    steps: state.finished,
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
