import { randomUUID } from 'node:crypto';
import { denialKinds, ToolError } from '../host/errors.js';
import type { StepError, StepStatus } from '../host/events.js';
import { stepStatuses } from '../host/step-statuses.js';
import type { CallOutcome, ToolHost } from '../host/tool-host.js';
import { interruptReason } from '../host/call-result.js';
import { exitCodeOfRun, exitCodes, type ExitCodeSource } from '../host/exit-codes.js';
import { summarizeImages, type AudioContent, type ImageContent } from '../host/content.js';
import type { ToolResult } from '../host/tool.js';
import { evaluateDeep, evaluateTemplate, isTruthy, type ExpressionContext } from './expressions/index.js';
import { evaluateArguments } from './step-arguments.js';
import type { CompiledStep, CompiledWorkflow, MatrixGroup } from './model.js';
import { cellId, cellSelected, evaluatedMatrixCells, type MatrixCell } from './matrix.js';
import { noCellSelected } from './expand.js';
import { groupRecord } from './groups.js';
import { enterGroup, entryOf, nestedDelegation, repeatedRecord, usesGroupRecord, usesGroups, type GroupEntry, type UsesGroupStep } from './nested.js';
import { OrderedReporter } from './ordered-reporter.js';
import { secretOutsideEnvironment } from './secret-arguments.js';
import type { RunContext } from './run-context.js';
import { stepErrorMessage } from './step-refusals.js';
import { parseStepResources } from './step-resources.js';
import type { PendingRecord, UpToDateChecks, UpToDateSource } from './up-to-date/checks.js';
import { Reservation } from './reservation.js';
import { decidesAlone, stepWait } from './step-wait.js';
import { TaskChecks } from './task-checks.js';

/** Why a run was stopped from outside; decides the exit code (130, 124). */
export const timeoutReason = 'timeout';

export interface RunOptions {
  /** The run's host: its `maxParallel` is the run's limit, its listeners receive the run's events. */
  host: ToolHost;
  workflow: CompiledWorkflow;
  inputs: Readonly<Record<string, unknown>>;
  secrets: Readonly<Record<string, string>>;
  /** The workflow's `env:` after evaluation, with the host variables `host_env:` names. */
  env: Readonly<Record<string, string>>;
  /** What `rho.*` reads. */
  rho?: RunContext;
  /** Aborted with `interruptReason` on SIGINT/SIGTERM or `timeoutReason` when `--timeout` expires. */
  signal: AbortSignal;
  runId?: string;
  /** Steps found invalid while the run goes on (once an MCP server's tools are known): they fail instead of running. */
  refusedSteps?: { problemOf(stepId: string): string | undefined };
  /** Skips steps with `sources:` that are up to date; without it, every step runs. */
  upToDate?: UpToDateChecks;
  /** `program`: a run whose first failure is a program's exit code exits with that code (as `just` does); `rho` (the default): 1. */
  exitCodeFrom?: ExitCodeSource;
}

export interface StepRecord {
  id: string;
  status: StepStatus;
  durationMs: number;
  error?: StepError;
  reason?: string;
  output: string;
  data: unknown;
  /** Images the step's tool returned (read_file, MCP tools). */
  images?: readonly ImageContent[];
  /** Audio clips the step's tool returned (MCP tools). */
  audio?: readonly AudioContent[];
  /** How many attempts it took, when its retry: ran it more than once. */
  attempts?: number;
  /** The file holding everything it printed (its last attempt). */
  log?: string;
  /** An up-to-date step: whether its outputs were left here or restored from the shared cache. */
  source?: UpToDateSource;
}

export interface RunSummary {
  runId: string;
  exitCode: number;
  steps: readonly StepRecord[];
  firstFailure: string | undefined;
  /**
   * After a successful run, evaluates the task's `outputs:` over its steps and inputs (throws
   * when one cannot be evaluated); evaluated only for a front end that returns them.
   */
  outputs?: () => Record<string, unknown>;
}

interface RunState {
  /** The run's steps: the workflow's, then the cells of matrices expanded while it runs. */
  steps: CompiledStep[];
  failed: boolean;
  firstFailure: string | undefined;
  firstFailureDenied: boolean;
  records: (StepRecord | undefined)[];
  /**
   * What expressions see of the finished steps of each task being run, by nested group (`''`
   * for the run's own task), added to as each is recorded (rebuilding it per step would cost steps²).
   */
  finished: Map<string, ExpressionContext['steps']>;
  /** The `uses:` groups, by the id of the scope their members are in. */
  groups: Map<string, UsesGroupStep>;
  /** Whether each nested group runs, decided when its first member is ready. */
  entries: Map<string, GroupEntry | undefined>;
  /** The first failure inside each nested group that had one, by the group's scope id. */
  failedGroups: Map<string, string>;
  /** Settles when a step has finished (its result is recorded). */
  done: Promise<void>[];
  /** Each step's place in the host's model order. */
  reservation: Reservation;
  /** Aborted at the run's first failure: steps that have not started stop waiting, detached steps are interrupted. */
  failure: AbortController;
  /** The run stopped or failed: what steps that have not started wait on. Derived once, as a signal per step costs ≈ 30 µs. */
  stopWaiting: AbortSignal;
  /** The up-to-date checks of whole tasks (`sources:` on a task). */
  taskChecks: TaskChecks;
}

type RecordFields = Omit<StepRecord, 'id' | 'durationMs' | 'output' | 'data'> & Partial<StepRecord>;

/**
 * Runs a compiled workflow: what only a workflow has — expressions, `if:`, `needs`, the records
 * of results, failure semantics and reporting in model order. Each step's call goes through the
 * host's one path (`ToolHost.reserve` in model order, then `submit`).
 */
export async function runWorkflow(options: RunOptions): Promise<RunSummary> {
  const { workflow, host } = options;
  const runId = options.runId ?? randomUUID();
  const startedAt = performance.now();
  const steps = [...workflow.steps];
  host.publish({
    type: 'run_started',
    runId,
    workflow: workflow.file.name,
    ...(workflow.task !== undefined && { task: workflow.task }),
    file: workflow.source.file,
    workspace: host.workspace.root,
    ...(host.environment.sandbox && { sandbox: host.environment.sandbox }),
    steps: steps.map(announced),
  });
  const failure = new AbortController();
  const groups = usesGroups(steps);
  const entries = new Map<string, GroupEntry | undefined>();
  const state: RunState = {
    steps,
    failed: false,
    firstFailure: undefined,
    firstFailureDenied: false,
    records: steps.map(() => undefined),
    finished: new Map([['', {}]]),
    groups,
    entries,
    failedGroups: new Map(),
    done: [],
    reservation: new Reservation(host, steps.length, (index) => steps[index]!.group?.kind === 'matrix' && steps[index]!.group.later !== undefined),
    failure,
    stopWaiting: AbortSignal.any([options.signal, failure.signal]),
    taskChecks: new TaskChecks({
      checks: options.upToDate,
      workflow,
      groups,
      inputsOf: (scope) => (scope === '' ? options.inputs : runInputs(entries.get(scope))),
      signal: options.signal,
    }),
  };
  const reporter = new OrderedReporter((event) => host.publish(event));
  for (const step of steps) state.done.push(runStep(step, options, state, reporter));
  await Promise.all(state.done);
  await state.taskChecks.finished('', !state.failed && !options.signal.aborted);

  const records = state.records.map((record) => record!);
  // What the run's task hands back, read only when it succeeded.
  const outputs = () => taskOutputs(options, state);
  const exitCode = exitCodeOf(options.signal, state, options.exitCodeFrom ?? 'rho');
  // A matrix's group repeats its cells' outcome: the counts are of steps that ran or could have.
  const counted = records.filter((_, index) => !state.steps[index]!.group);
  const counts = Object.fromEntries(stepStatuses.map((status) => [status, counted.filter((r) => r.status === status).length])) as Record<StepStatus, number>;
  host.publish({
    type: 'run_finished',
    exitCode,
    durationMs: performance.now() - startedAt,
    counts,
    ...(state.firstFailure !== undefined && { firstFailure: state.firstFailure }),
  });
  const summary = { runId, exitCode, steps: records, firstFailure: state.firstFailure };
  return exitCode === exitCodes.success ? { ...summary, outputs } : summary;
}

/** The run's own task's `outputs:`, evaluated as a `uses:` step reads them. */
function taskOutputs(options: RunOptions, state: RunState): Record<string, unknown> {
  const context: ExpressionContext = {
    inputs: { ...options.inputs },
    steps: finishedIn(state, undefined),
    env: { ...options.env },
    secrets: { ...options.secrets },
    extra: { ...(options.rho && { rho: options.rho }) },
    run: { failed: false, cancelled: false },
  };
  return Object.fromEntries(Object.entries(options.workflow.outputs).map(([name, template]) => [name, evaluateTemplate(template, context)]));
}

function exitCodeOf(signal: AbortSignal, state: RunState, from: ExitCodeSource): number {
  const stopped = signal.aborted ? (signal.reason === timeoutReason ? 'timeout' : 'interrupt') : undefined;
  const code = exitCodeOfRun({ stopped, firstFailure: state.failed ? (state.firstFailureDenied ? 'denied' : 'failure') : undefined });
  const program = state.firstFailure === undefined ? undefined : programExitCode(state.records.find((record) => record?.id === state.firstFailure));
  return from === 'program' && code === exitCodes.failure && program !== undefined ? program : code;
}

/** The exit code of the program a failed step ran, when it exited with one its step does not accept. */
function programExitCode(record: Pick<StepRecord, 'status' | 'data'> | undefined): number | undefined {
  if (record?.status !== 'failure') return undefined;
  const code = (record.data as { exit_code?: unknown } | null)?.exit_code;
  return typeof code === 'number' && Number.isInteger(code) && code > 0 && code < 256 ? code : undefined;
}

async function runStep(step: CompiledStep, options: RunOptions, state: RunState, reporter: OrderedReporter): Promise<void> {
  if (step.group?.kind === 'matrix' && step.group.later) return runDeferredMatrix(step, options, state, reporter);
  const { ticket, position } = await state.reservation.placeOf(step.index);
  await readyToStart(step, position, options, state);
  // A step's duration is how long it executed; one that never executed counts from when it was ready.
  let startedAt = performance.now();
  // A step is finished (recorded, its failure known to the run, its event reported) before it
  // gives its place in the model order back, so no later step starts ahead of that.
  const finish = (record: RecordFields, continueOnError = false) =>
    finishStep(step, position, { id: step.id, output: '', data: null, durationMs: performance.now() - startedAt, ...record }, continueOnError, state, reporter);
  const stopped = () => ({ status: 'cancelled' as const, reason: options.signal.reason === timeoutReason ? 'the run timed out' : 'the run was interrupted' });
  /** Ends a step that will never execute. */
  const endUnstarted = (record: RecordFields, continueOnError = false) => {
    finish(record, continueOnError);
    ticket.withdraw();
  };
  if (step.group) {
    await Promise.all(step.group.members.map((index) => state.done[index]));
    const record = recordGroup(step, options, state);
    if (step.group.kind === 'uses') await state.taskChecks.finished(step.group.scope.id, record.status === 'success');
    return endUnstarted(record, step.continueOnError && (record.status === 'failure' || record.status === 'denied'));
  }
  if (options.signal.aborted) return endUnstarted(stopped());
  // A step of a nested group runs only if its group does (decided by the first of them that is
  // ready); after a failure, one that would be skipped anyway does not decide it.
  const failedBefore = failureBefore(state, step);
  if (step.scope && (failedBefore === undefined || step.conditionUsesStatus)) {
    const entry = entryOf(step.scope.id, state.groups, state.entries, (group) => enterGroup(group, expressionContext(options, state, group)))!;
    if (entry.kind !== 'run') return endUnstarted({ status: 'skipped', reason: entry.membersReason });
  }

  if (step.platformSkip !== undefined) return endUnstarted({ status: 'skipped', reason: step.platformSkip });
  let args: unknown;
  try {
    const context = expressionContext(options, state, step);
    const run = step.condition === undefined ? true : typeof step.condition === 'boolean' ? step.condition : isTruthy(evaluateTemplate(step.condition, context));
    if (failedBefore !== undefined && !step.conditionUsesStatus) return endUnstarted({ status: 'skipped', reason: `${failedBefore} failed` });
    if (!run) return endUnstarted({ status: 'skipped', reason: 'its if: condition is false' });
    const task = await state.taskChecks.blocking(step);
    if (task && 'upToDate' in task) return endUnstarted({ status: 'up_to_date', reason: task.upToDate.reason, source: task.upToDate.source });
    if (task) throw task.refused;
    const refusal = options.refusedSteps?.problemOf(step.id);
    if (refusal) throw new ToolError('invalid_arguments', refusal);
    const tool = options.host.tools.get(step.tool);
    args = evaluateArguments(step, context, tool);
    const runsProcesses = tool?.classes.some((c) => c === 'process' || c === 'shell') ?? false;
    const leak = runsProcesses ? secretOutsideEnvironment(args, Object.values(options.secrets)) : undefined;
    if (leak) {
      throw new ToolError(
        'invalid_arguments',
        `argument ${leak} holds a secret; secrets reach processes only through the environment: set env: { NAME: "\${{ secrets.NAME }}" } and read $NAME`,
      );
    }
  } catch (error) {
    const kind = error instanceof ToolError ? error.kind : 'invalid_arguments';
    return endUnstarted({ status: denialKinds.has(kind) ? 'denied' : 'failure', error: { kind, message: `step ${step.id}: ${(error as Error).message}` } });
  }

  const alone = decidesAlone(step);
  const maxParallel = options.host.maxParallel;
  const call = {
    id: `${step.id}#${step.index}`,
    tool: step.tool,
    args,
    stepId: step.id,
    ...(step.scope && { delegation: nestedDelegation(step.scope) }),
    ...(step.timeoutMs !== undefined && { timeoutMs: step.timeoutMs }),
    ...(step.writes && { writes: step.writes }),
  };
  const checks = step.sources === undefined ? undefined : options.upToDate;
  let pending: PendingRecord | undefined;
  let staleBecause: string | undefined;
  if (checks) {
    const checkSignal = alone ? options.signal : state.stopWaiting;
    const verdict = await checks.check(step, call, checkSignal);
    if (checkSignal.aborted) return endUnstarted(options.signal.aborted ? stopped() : { status: 'skipped', reason: `${state.firstFailure} failed` });
    if (verdict.kind === 'refused') {
      const { kind, message } = verdict.error;
      return endUnstarted({ status: denialKinds.has(kind) ? 'denied' : 'failure', error: { kind, message: `step ${step.id}: checking whether it is up to date: ${message}` } });
    }
    if (verdict.kind === 'up_to_date') return endUnstarted({ status: 'up_to_date', reason: verdict.reason, source: verdict.source, ...verdict.restored });
    ({ pending, reason: staleBecause } = verdict);
    await checks.starting(pending);
  }
  // Until it executes, a step gives up when the run is stopped or, unless its `if:` reads step
  // statuses, when another step fails. At -j1 one step waits at a time, so all can share the
  // run's derived signal; with more slots many wait at once, and listeners piling up on one
  // signal would make each addition slower.
  const waitSignal = alone ? options.signal : maxParallel === 1 ? state.stopWaiting : AbortSignal.any([options.signal, state.failure.signal]);
  await ticket.submit(call, {
    signal: step.async ? AbortSignal.any([options.signal, state.failure.signal]) : options.signal,
    waitSignal,
    ...(step.resources && { resources: parseStepResources(step.resources, options.host.workspace.root) }),
    detached: step.async,
    ...(step.retry && { retry: step.retry }),
    onStarted: () => {
      startedAt = performance.now();
    },
    // Detached: later steps and their results no longer wait for it.
    onDetached: () => reporter.detached(position),
    onSettled: (outcome) =>
      recordOutcome(step, outcome, options.signal, state, (record, continueOnError) =>
        finish(staleBecause !== undefined && record.reason === undefined ? { ...record, reason: staleBecause } : record, continueOnError),
      ),
  });
  if (checks && pending) {
    const record = state.records[step.index];
    if (record?.status === 'success') await checks.succeeded(step, call, pending, options.signal, record);
    else checks.failed(pending);
  }
}

function recordOutcome(step: CompiledStep, outcome: CallOutcome, signal: AbortSignal, state: RunState, finish: (record: RecordFields, continueOnError?: boolean) => void): void {
  if (outcome.kind === 'withdrawn') {
    const reason = signal.reason === timeoutReason ? 'the run timed out' : 'the run was interrupted';
    finish(signal.aborted ? { status: 'cancelled', reason } : { status: 'skipped', reason: `${state.firstFailure} failed` });
    return;
  }
  const record = { ...executedRecord(step, outcome.result, signal, state), ...(outcome.attempts !== undefined && { attempts: outcome.attempts }) };
  finish(record, step.continueOnError && (record.status === 'failure' || record.status === 'denied'));
}

/** How an executed step is recorded. A detached step the run stopped (failure, timeout, interrupt) is `interrupted`. */
function executedRecord(step: CompiledStep, result: ToolResult, signal: AbortSignal, state: RunState) {
  const stoppedByRun = signal.aborted || state.failed;
  const stoppedWhileDetached = step.async && stoppedByRun && (result.status === 'interrupted' || result.status === 'cancelled');
  return {
    status: stoppedWhileDetached ? ('interrupted' as const) : result.status,
    output: result.output?.text ?? '',
    data: result.output?.data ?? null,
    ...(result.output?.images?.length && { images: result.output.images }),
    ...(result.output?.audio?.length && { audio: result.output.audio }),
    ...(result.error && { error: { kind: result.error.kind, message: stepErrorMessage(step.id, result.error) } }),
    ...(result.log !== undefined && { log: result.log }),
    ...(stoppedWhileDetached && { reason: detachedStopReason(signal, state) }),
  };
}

function detachedStopReason(signal: AbortSignal, state: RunState): string {
  if (!signal.aborted) return `${state.firstFailure} failed while it ran detached`;
  return signal.reason === timeoutReason ? 'the run timed out while it ran detached' : 'the run was interrupted while it ran detached';
}

/**
 * The failure that skips a step, if any: the run's first, or for a step whose group runs after
 * earlier failures (its `if:` reads statuses), the first inside that group.
 */
function failureBefore(state: RunState, step: CompiledStep): string | undefined {
  if (step.failureScope !== undefined) return state.failedGroups.get(step.failureScope);
  return state.failed ? state.firstFailure : undefined;
}

/** Records a step's end: its failure known to the run, its record to later expressions, its event reported in model order. */
function finishStep(step: CompiledStep, position: number, complete: StepRecord, continueOnError: boolean, state: RunState, reporter: OrderedReporter): void {
  const failing = (complete.status === 'failure' || complete.status === 'denied') && !step.continueOnError && !step.deferFailure;
  if (failing && !state.failed) {
    state.failed = true;
    state.firstFailure = step.id;
    state.firstFailureDenied = complete.status === 'denied';
    state.failure.abort(interruptReason);
  }
  if (failing) markFailedGroups(state, step);
  state.records[step.index] = complete;
  finishedIn(state, step.scope?.id)[step.localId] = { status: complete.status, output: complete.output, data: complete.data };
  reporter.finished(position, {
    type: 'step_finished',
    stepId: step.id,
    index: step.index,
    status: complete.status,
    durationMs: complete.durationMs,
    ...(complete.error && { error: complete.error }),
    ...(complete.reason && { reason: complete.reason }),
    ...(continueOnError && { continueOnError }),
    ...(complete.images && { images: summarizeImages(complete.images) }),
    ...(complete.audio && { audio: summarizeImages(complete.audio) }),
    ...(complete.attempts !== undefined && complete.attempts > 1 && { attempts: complete.attempts }),
    ...(complete.log !== undefined && { log: complete.log }),
    ...(complete.source && { source: complete.source }),
    ...(!step.group && programExitCode(complete) !== undefined && { exitCode: programExitCode(complete) }),
  });
}

/**
 * A matrix whose cells are known only now: once every step before it has its place and it may
 * start, its matrix is evaluated in its scope, its cells are expanded after the run's steps
 * (announced in `steps_added`) and placed before it in model order, and it records their
 * combined status as any matrix does. A matrix that cannot be evaluated fails; one in a group
 * that does not run, or after a failure, has no cells and is skipped.
 */
async function runDeferredMatrix(step: CompiledStep, options: RunOptions, state: RunState, reporter: OrderedReporter): Promise<void> {
  const later = (step.group as MatrixGroup).later!;
  await state.reservation.reached(step.index);
  await readyToStart(step, state.reservation.order.length, options, state);
  const startedAt = performance.now();
  const expansion = expandMatrixNow(step, later.step, options, state);
  let group = step;
  if ('cells' in expansion) {
    const { steps: added, members } = options.workflow.expandCells(step, expansion.cells, state.steps.length);
    group = { ...step, dependencies: members, group: { kind: 'matrix', members } };
    state.steps[step.index] = group;
    for (const cell of added) {
      state.steps.push(cell);
      state.records.push(undefined);
      if (cell.group?.kind === 'uses') state.groups.set(cell.group.scope.id, cell as UsesGroupStep);
    }
    options.host.publish({ type: 'steps_added', group: step.id, steps: added.map(announced) });
    for (const cell of added) state.done[cell.index] = runStep(cell, options, state, reporter);
    state.reservation.expanded(added.map((cell) => cell.index));
  } else {
    state.reservation.expanded([]);
  }
  const { ticket, position } = await state.reservation.placeOf(step.index);
  if (group.group!.members.length > 0) await Promise.all(group.group!.members.map((index) => state.done[index]));
  const record = 'cells' in expansion ? recordGroup(group, options, state) : expansion.record;
  const failed = record.status === 'failure' || record.status === 'denied';
  finishStep(group, position, { id: step.id, output: '', data: null, durationMs: performance.now() - startedAt, ...record }, step.continueOnError && failed, state, reporter);
  ticket.withdraw();
}

/** The cells a deferred matrix runs now, or how it is recorded when it runs none. */
function expandMatrixNow(
  group: CompiledStep,
  matrixStep: CompiledStep,
  options: RunOptions,
  state: RunState,
): { cells: MatrixCell[] } | { record: Omit<RecordFields, 'id'> & { data?: unknown } } {
  if (options.signal.aborted) return { record: { status: 'cancelled', reason: options.signal.reason === timeoutReason ? 'the run timed out' : 'the run was interrupted' } };
  const failedBefore = failureBefore(state, matrixStep);
  if (failedBefore !== undefined && !matrixStep.conditionUsesStatus) return { record: { status: 'skipped', reason: `${failedBefore} failed` } };
  if (group.scope) {
    const entry = entryOf(group.scope.id, state.groups, state.entries, (uses) => enterGroup(uses, expressionContext(options, state, uses)))!;
    if (entry.kind !== 'run') return { record: { status: 'skipped', reason: entry.membersReason } };
  }
  if (matrixStep.platformSkip !== undefined) return { record: { status: 'skipped', reason: matrixStep.platformSkip } };
  try {
    const value = evaluateDeep(matrixStep.dynamicMatrix!.matrix, expressionContext(options, state, group));
    const cells = evaluatedMatrixCells(value);
    const filter = options.workflow.matrixFilter;
    const selected = cells.filter((cell) => cellSelected(cell, filter));
    if (selected.length === 0 && cells.some((cell) => Object.keys(filter).some((name) => name in cell))) {
      throw noCellSelected(
        filter,
        cells.map((cell) => cellId(group.id, cell)),
      );
    }
    return { cells: selected };
  } catch (error) {
    return { record: { status: 'failure', error: { kind: 'invalid_arguments', message: `step ${group.id}: matrix: ${(error as Error).message}` } } };
  }
}

/** A step as `run_started` and `steps_added` announce it. */
function announced({ id, name, tool, line, file, group }: CompiledStep) {
  return { id, name, tool, line, ...(file !== undefined && { file }), ...(group && { kind: group.kind }) };
}

/**
 * Waits until a step may be prepared. One step at a time reads like a script: a step is prepared
 * only after every earlier step, so it sees what they did. With more slots, a step is prepared
 * once what it waits on (`stepWait`) is over. At -j1 the step before waited for its own predecessors, so
 * waiting for it alone is enough (and keeps a long run linear: waiting on every earlier step
 * costs steps² promise reactions).
 */
async function readyToStart(step: CompiledStep, position: number, options: RunOptions, state: RunState): Promise<void> {
  const maxParallel = options.host.maxParallel;
  const order = state.reservation.order;
  if (maxParallel === 1) {
    await order[position - 1]?.released;
    return;
  }
  const wait = stepWait(step);
  await Promise.all(wait.kind === 'every_earlier' ? order.slice(0, position).map((t) => t.released) : wait.steps.map((index) => state.done[index]!));
}

/** A step failed: so did each nested group it is in, for the steps that count only their group's failures. */
function markFailedGroups(state: RunState, step: CompiledStep): void {
  for (let scope = step.scope; scope; scope = state.groups.get(scope.id)?.scope) {
    if (!state.failedGroups.has(scope.id)) state.failedGroups.set(scope.id, step.id);
  }
}

/** What `steps.*` reads in a scope: the finished steps of the task that runs there. */
function finishedIn(state: RunState, scope: string | undefined): ExpressionContext['steps'] {
  const key = scope ?? '';
  let finished = state.finished.get(key);
  if (!finished) state.finished.set(key, (finished = {}));
  return finished;
}

/** A group's record once its members have finished: a matrix's cells' combined status, or a `uses:` group's. */
function recordGroup(step: CompiledStep, options: RunOptions, state: RunState) {
  const group = step.group!;
  if (group.kind === 'matrix') return groupRecord(group.members.map((index) => ({ record: state.records[index]!, matrix: state.steps[index]!.matrix })));
  return recordUsesGroup(step as UsesGroupStep, options, state);
}

function recordUsesGroup(step: UsesGroupStep, options: RunOptions, state: RunState) {
  if (step.group.repeats !== undefined) return repeatedRecord(state.records[step.group.repeats]!);
  const upToDate = state.taskChecks.upToDate(step.group.scope.id);
  if (upToDate !== undefined) return { status: 'up_to_date' as const, data: null, ...upToDate };
  const members = step.group.members.map((index) => ({ record: state.records[index]!, continueOnError: state.steps[index]!.continueOnError }));
  return usesGroupRecord(step, state.entries.get(step.group.scope.id), members, (inputs) => ({
    ...expressionContext(options, state, step),
    inputs,
    steps: finishedIn(state, step.group.scope.id),
  }));
}

/** The inputs a step reads: the run's, or in a nested group the ones its `uses:` step gave. */
function inputsOf(options: RunOptions, state: RunState, step: CompiledStep): Readonly<Record<string, unknown>> {
  return step.scope ? runInputs(state.entries.get(step.scope.id)) : options.inputs;
}

function runInputs(entry: GroupEntry | undefined): Readonly<Record<string, unknown>> {
  return entry?.kind === 'run' ? entry.inputs : {};
}

function expressionContext(options: RunOptions, state: RunState, step: CompiledStep): ExpressionContext {
  return {
    inputs: { ...inputsOf(options, state, step) },
    // Shared, not copied: a step evaluates its expressions at once, before any other step finishes.
    steps: finishedIn(state, step.scope?.id),
    env: { ...options.env },
    secrets: { ...options.secrets },
    extra: { ...(options.rho && { rho: options.rho }), ...(step.matrix && { matrix: step.matrix }) },
    run: { failed: state.failed, cancelled: options.signal.aborted },
  };
}
