import { formatMs } from './format-ms.js';
import { abortGraceMs, followingController, raceAbort } from './abort.js';
import type { Approver } from './approval.js';
import { Authorizer, type ScriptedApprovals } from './authorization.js';
import { executeCall } from './call-execution.js';
import { CallOrder } from './call-order.js';
import { runCallPath, type CallOutcome, type CallPathSteps, type SubmitOptions } from './call-path.js';
import { prepareCall } from './call-preparation.js';
import { failedResult, interruptReason } from './call-result.js';
import type { CapabilityRequest } from './capability.js';
import type { AuthorizationSubject, GrantHints } from './denials.js';
import { EventDelivery, type EventListener } from './event-delivery.js';
import { freezeRequest } from './frozen-request.js';
import { rewriteResult, type ResultRewriter } from './result-rewrite.js';
import type { RunObserver } from './run-observer.js';
import { narrowWritable, planConfinement, type CacheName, type CallConfinement, type ConfinementPlan, type NetworkProxy } from './confinement/index.js';
import { ToolError, toToolError } from './errors.js';
import type { AuditRecord, HostEvent, RunEvent } from './events.js';
import type { PreToolGate } from './gates.js';
import type { Questioner } from './host-input.js';
import type { Policy, PolicyEvaluation } from './policy.js';
import { roomOfAll } from './progress-queue.js';
import type { PreparedCall, ToolCall } from './prepared-call.js';
import type { ToolRegistry } from './registry.js';
import { validateMaxParallel } from './schedule-book.js';
import { SessionState } from './session-state.js';
import type { OutputOptions } from './step-output.js';
import type { HostEnvironment, Tool, ToolOutput, ToolResult } from './tool.js';
import { ToolHostRun } from './tool-host-run.js';
import type { Workspace } from './workspace.js';

/** What a host gives tools when the embedder passes no `environment`: no variables and no secrets, so a process it starts gets an empty environment. */
const emptyEnvironment: HostEnvironment = Object.freeze({ env: Object.freeze({}), secretNames: Object.freeze([]), processEnv: Object.freeze({ mode: 'empty' as const }) });

export interface ToolHostOptions {
  workspace: Workspace;
  policy: Policy;
  tools: ToolRegistry;
  /**
   * Facts tools use to start processes (the variables they may inherit, secrets, the default
   * environment mode, confinement). A host that starts no process can leave it out: processes
   * then get an empty environment and run unconfined.
   */
  environment?: HostEnvironment;
  /** How many calls execute at once (default 1); conflicting calls keep their submission order. */
  maxParallel?: number;
  approver?: Approver;
  scripted?: ScriptedApprovals;
  questioner?: Questioner;
  gates?: readonly PreToolGate[];
  onEvent?: EventListener;
  /** Masks secrets in text the host passes on (progress); identity when absent. */
  redact?: (text: string) => string;
  /** How denials say what would grant a request (the CLI names its flags); rules and options when absent. */
  grantHints?: GrantHints;
  /** Problems that must not change an outcome (a listener that failed, an observer that failed, a tool declaration that fell back to a default). */
  onWarning?: (message: string) => void;
  /**
   * Watches every event and every finished call, beside the path (hook observers: see
   * `HostObservers`, which builds one from observers and the hook options). Drained by `dispose()`.
   */
  observer?: RunObserver;
  /** The run's filtering proxy for confined processes whose network is `network(HOST)` rules; without one they get none. */
  networkProxy?: NetworkProxy;
  /** The well-known caches confined processes may write (`policy.caches`). */
  caches?: readonly CacheName[];
  /** How much of a call's output (`ctx.output`) its progress events carry, and where all of it is kept. */
  output?: OutputOptions;
  /** Sees every call's output before the caller does and may replace it (to redact a secret): see `ResultRewriter`. */
  rewriteResult?: ResultRewriter;
}

/** One place in a host's model order, taken before the call is known (a workflow reserves one per step). */
export interface CallTicket {
  readonly index: number;
  /** Settles once the call no longer holds later calls back: it finished, withdrew, or runs detached. */
  readonly released: Promise<void>;
  /** Runs the call along the whole path; resolves with its outcome. Call at most once. */
  submit(call: ToolCall, options: SubmitOptions): Promise<CallOutcome>;
  /** The call will never be submitted. */
  withdraw(): void;
}

/** A prepared call as `preview` shows it: what it would ask for and touch, with no way to run it. */
export type CallPreview = Pick<PreparedCall, 'kind' | 'requests' | 'resources' | 'summary' | 'confinement'>;

/** What a call started with `start()` has of its own: its event stream and its questioner. */
interface CallExtras {
  sink: ((event: HostEvent) => void) | undefined;
  questioner: Questioner | undefined;
  /** While the reader of its events is behind on output it must keep, a promise of room (`ToolHostRun.room`). */
  room?: () => Promise<void> | undefined;
}

/** A call in flight: where its own events go, and how `dispose()` ends it. */
interface InFlight extends CallExtras {
  stop(): void;
  done: Promise<void>;
  /** The first request the call put to authorization. */
  authorized: CapabilityRequest | undefined;
  /** How many times it has begun executing (a retried call executes again). */
  executions: number;
}

/**
 * Runs registered tools without a model. Every call — a workflow's step, `invoke`, `start` —
 * takes one path (`runCallPath`): prepared, declared to the scheduler, authorized (policy →
 * gates → remembered → scripted → approver), executed within its limit and `maxParallel`, and
 * reported as a typed result. Preparation, authorization and execution are not public: no call
 * can skip a step of the path.
 */
export class ToolHost {
  readonly workspace: Workspace;
  readonly tools: ToolRegistry;
  readonly maxParallel: number;
  /** State shared by this host's calls (background processes), cleaned up by `dispose()`. */
  readonly session = new SessionState();
  readonly #authorizer: Authorizer;
  readonly #delivery: EventDelivery;
  readonly #keepsOutput: boolean;
  readonly #environment: HostEnvironment;
  /** Tools whose declaration warnings were reported. */
  readonly #reportedTools = new WeakSet<Tool>();
  #observerFailed = false;
  readonly #inFlight = new Map<string, InFlight>();
  #order: CallOrder;
  readonly #steps: CallPathSteps;
  readonly #observer: RunObserver | undefined;
  /** The policy's confinement plan, computed on first use: once per policy, never per call. */
  #plan: ConfinementPlan | undefined;

  readonly #options: ToolHostOptions;

  constructor(options: ToolHostOptions) {
    this.#options = options;
    this.workspace = options.workspace;
    this.tools = options.tools;
    this.maxParallel = options.maxParallel ?? 1;
    validateMaxParallel(this.maxParallel);
    this.#order = new CallOrder(this.maxParallel);
    this.#environment = options.environment ?? emptyEnvironment;
    // Every byte of output asked for (`limitBytes: Infinity`): a reader behind slows the output rather than lose it.
    this.#keepsOutput = options.output?.limitBytes === Infinity;
    this.#delivery = new EventDelivery((message) => this.#warn(message), this.#keepsOutput);
    if (options.onEvent) this.#delivery.add(options.onEvent);
    this.#observer = options.observer;
    this.#authorizer = new Authorizer({
      policy: options.policy,
      workspaceRoot: options.workspace.root,
      gates: options.gates ?? [],
      scripted: options.scripted ?? { rules: [], yes: false },
      approver: options.approver,
      ...(options.grantHints && { hints: options.grantHints }),
      emit: (callId: string, event: HostEvent) => this.#emitFor(callId, event),
      remembersApprovals: (tool) => this.tools.get(tool)?.rememberApprovals ?? true,
    });
    for (const tool of this.tools.list()) this.#reportWarnings(tool);
    this.#steps = {
      prepare: (call, signal) => this.#prepare(call, signal),
      authorize: (prepared, signal) => this.#authorizeAll(prepared, signal),
      started: (prepared, index, attempt) =>
        this.#emitFor(prepared.call.id, {
          type: 'step_started',
          stepId: prepared.call.stepId ?? prepared.call.id,
          index,
          tool: prepared.call.tool,
          ...(attempt && { attempt: attempt.attempt, attempts: attempt.of }),
        }),
      retrying: (prepared, { attempt, of, result, delayMs }) =>
        this.#emitFor(prepared.call.id, {
          type: 'step_progress',
          stepId: prepared.call.stepId ?? prepared.call.id,
          message: `attempt ${attempt} of ${of} failed: ${result.error?.message ?? result.status}; trying again${delayMs > 0 ? ` in ${formatMs(delayMs)}` : ''}`,
        }),
      execute: (prepared, signal, detached) => this.#execute(prepared, signal, detached),
      finish: (prepared, result, signal) => {
        const rewriter = options.rewriteResult;
        if (!rewriter) return result;
        const { call } = prepared;
        const announce = () => this.#emitFor(call.id, { type: 'step_output_rewritten', stepId: call.stepId ?? call.id, by: rewriter.name });
        return rewriteResult(rewriter, prepared.tool, call.stepId, result, signal, announce);
      },
    };
  }

  /**
   * Adds an event listener (sync or async); returns a function that removes it. Listeners are
   * off the calls' path: see `EventDelivery` for the order and bounds they get.
   */
  subscribe(listener: EventListener): () => void {
    return this.#delivery.add(listener);
  }

  /** Resolves once every event so far has reached every listener, and their promises have settled. */
  flushEvents(): Promise<void> {
    return this.#delivery.flushed();
  }

  /** Reports a run-level event (a workflow's start, a step's end in model order) to this host's listeners. */
  publish(event: Extract<RunEvent, { type: 'run_started' | 'steps_added' | 'step_finished' | 'run_finished' }>): void {
    this.#deliver(event);
  }

  /** The host facts calls see (environment, secret names, process env mode). */
  get environment(): HostEnvironment {
    return this.#environment;
  }

  /** What the policy alone would decide for a request (for `rho plan`); no gate or approver is asked. */
  evaluatePolicy(request: CapabilityRequest): PolicyEvaluation {
    return this.#options.policy.evaluate(request, this.workspace.root);
  }

  /** What the policy lets every confined process touch (writable roots, hidden paths, network). */
  get confinementPlan(): ConfinementPlan {
    const environment = this.#environment;
    this.#plan ??= planConfinement({
      policy: this.#options.policy,
      workspaceRoot: this.workspace.root,
      grantedRoots: this.workspace.grantedRoots,
      homeDirectories: environment.homeDirectories ?? [],
      home: environment.home,
      // Where a tool keeps its cache or installation follows the variables its processes get.
      variables: { ...environment.env, ...environment.processVariables },
      caches: this.#options.caches ?? [],
      privatePaths: this.workspace.privatePaths,
    });
    return this.#plan;
  }

  /**
   * How the processes a call starts are confined: the run's sandbox status and the plan,
   * narrowed by the call's `writes` (a `writes` entry the policy does not grant throws the denial).
   * A plan that reaches hosts through the proxy comes with the call's endpoint: every connection
   * its processes ask for goes through the authorization path as a request of this call, for as
   * long as the process runs (a background process outlives its call).
   */
  callConfinement(call: ToolCall): CallConfinement {
    const status = this.#environment.sandbox ?? { confined: false, mode: 'off', reason: 'this host does not confine processes' };
    const narrowed = call.writes !== undefined;
    const { home } = this.#environment;
    const plan = call.writes ? narrowWritable(this.confinementPlan, call.writes, this.workspace.root, home) : this.confinementPlan;
    const proxy =
      status.confined && plan.network.mode === 'proxy' ? this.#options.networkProxy?.endpoint((request, signal) => this.#authorizeOne(call, request, signal)) : undefined;
    return { status, plan, ...(narrowed && { narrowed: true }), ...(proxy && { proxy }), ...(home !== undefined && { home }) };
  }

  /** Whether a path inside a tree read that was authorized is still kept back: by a `deny` or `ask` read rule, or as one of rho's own. */
  withholdsRead(absolute: string, links?: number): boolean {
    return this.workspace.isPrivate(absolute) || this.#options.policy.withholdsRead(absolute, this.workspace.root, links);
  }

  auditSnapshot(): readonly AuditRecord[] {
    return this.#authorizer.auditSnapshot();
  }

  /**
   * What a call would ask for and touch, for `rho plan`: it is prepared, never authorized or
   * executed, and what comes back cannot be executed.
   */
  async preview(call: ToolCall, signal: AbortSignal): Promise<CallPreview | ToolError> {
    const prepared = await this.#prepare(call, signal);
    if (prepared instanceof ToolError) return prepared;
    return { kind: prepared.kind, requests: prepared.requests, resources: prepared.resources, summary: prepared.summary, confinement: prepared.confinement };
  }

  /** Takes the next place in model order, for a call that will be submitted (or withdrawn) later. */
  reserve(): CallTicket {
    return this.#reserveFor({ sink: undefined, questioner: undefined });
  }

  #reserveFor(extras: CallExtras): CallTicket {
    // A host used for many calls starts a fresh order whenever everything before has finished.
    if (this.#order.idle) this.#order = new CallOrder(this.maxParallel);
    const order = this.#order;
    const index = order.enqueue();
    let used = false;
    const use = () => {
      if (used) throw new ToolError('internal', `call place ${index} was used twice`);
      used = true;
    };
    return {
      index,
      released: order.releasedPromise(index),
      submit: (call, options) => {
        use();
        return this.#submit(order, index, call, options, extras);
      },
      withdraw: () => {
        use();
        order.withdraw(index);
      },
    };
  }

  /** Runs one call to completion, scheduled with the host's other calls. Never throws for a tool's failure. */
  async invoke(call: ToolCall, signal: AbortSignal = new AbortController().signal): Promise<ToolResult> {
    return this.#invokeWith(call, signal, { sink: undefined, questioner: undefined });
  }

  /**
   * Starts one call and returns at once: its events, answers to its questions through
   * `respond()`, `cancel()`, and the final result. Same path as `invoke`.
   */
  start(call: ToolCall): ToolHostRun {
    const controller = new AbortController();
    const run: ToolHostRun = new ToolHostRun(call.id, call.stepId ?? call.id, controller, this.#keepsOutput, (questioner) =>
      this.#invokeWith(call, controller.signal, { sink: (event) => run.accept(event), questioner, room: () => run.room() }),
    );
    return run;
  }

  /**
   * Authorizes one request the run makes for something other than a call (starting a workflow's
   * MCP server), on the same path as a call's requests; the refusal is returned.
   */
  async authorizeRequest(subject: ToolCall, request: CapabilityRequest, signal: AbortSignal): Promise<ToolError | undefined> {
    try {
      await this.#authorizer.authorize(this.#subjectOf(subject), request, signal);
      return undefined;
    } catch (thrown) {
      return toToolError(thrown, 'policy_denied');
    }
  }

  /**
   * Ends the host: cancels calls in flight, waits for them briefly, stops what calls left
   * running, and lets listeners and the observer catch up (listeners for at most a few seconds);
   * returns notices about it.
   */
  async dispose(): Promise<readonly string[]> {
    const flights = [...this.#inFlight.values()];
    for (const flight of flights) flight.stop();
    await raceAbort(Promise.all(flights.map((flight) => flight.done)), AbortSignal.timeout(abortGraceMs)).catch(() => {});
    const notices = [...(await this.session.dispose())];
    await this.#observer?.drain?.();
    const caughtUp = await raceAbort(
      this.#delivery.flushed().then(() => true),
      AbortSignal.timeout(abortGraceMs),
    ).catch(() => false);
    if (!caughtUp) notices.push(`event listeners had not caught up ${formatMs(abortGraceMs)} after the host was disposed; the events still queued for them were not delivered`);
    return notices;
  }

  async #invokeWith(call: ToolCall, signal: AbortSignal, extras: CallExtras): Promise<ToolResult> {
    const ticket = this.#reserveFor(extras);
    const startedAt = performance.now();
    const outcome = await ticket.submit(call, { signal });
    if (outcome.kind === 'result') return outcome.result;
    return failedResult(call, new ToolError('cancelled', `${call.tool} was cancelled before it started`), signal, performance.now() - startedAt);
  }

  async #submit(order: CallOrder, index: number, call: ToolCall, options: SubmitOptions, extras: CallExtras): Promise<CallOutcome> {
    if (this.#inFlight.has(call.id)) {
      const error = new ToolError('invalid_arguments', `a call with id ${call.id} is already in flight on this host; give each concurrent call its own id`);
      const outcome: CallOutcome = { kind: 'result', result: failedResult(call, error, options.signal, 0) };
      options.onSettled?.(outcome);
      order.withdraw(index);
      return outcome;
    }
    // The call's own signals follow the caller's, so that dispose() can end the call too.
    const running = followingController(options.signal);
    const waiting = options.waitSignal ? followingController(options.waitSignal) : running;
    let finished: () => void = () => {};
    const flight: InFlight = {
      stop: () => {
        running.controller.abort('cancelled');
        waiting.controller.abort('cancelled');
      },
      done: new Promise<void>((resolve) => (finished = resolve)),
      sink: extras.sink,
      questioner: extras.questioner,
      ...(extras.room && { room: extras.room }),
      authorized: undefined,
      executions: 0,
    };
    this.#inFlight.set(call.id, flight);
    try {
      const outcome = await runCallPath(this.#steps, order, index, call, { ...options, signal: running.controller.signal, waitSignal: waiting.controller.signal });
      if (outcome.kind === 'result') this.#notifyFinished(call, outcome.result, flight.authorized);
      return outcome;
    } finally {
      running.dispose();
      waiting.dispose();
      this.#inFlight.delete(call.id);
      finished();
    }
  }

  /** Authorizes every request a planned call declared, in order; the first refusal is returned. */
  async #authorizeAll(prepared: PreparedCall, signal: AbortSignal): Promise<ToolError | undefined> {
    for (const request of prepared.requests) {
      try {
        await this.#authorizeOne(prepared.call, request, signal);
      } catch (thrown) {
        return toToolError(thrown, 'policy_denied');
      }
    }
    return undefined;
  }

  /** Authorizes one request of a call; the first it asks is kept, frozen as it was decided on, for the after_tool_use hooks. */
  async #authorizeOne(call: ToolCall, asked: CapabilityRequest, signal: AbortSignal): Promise<void> {
    const request = freezeRequest(asked);
    const flight = this.#inFlight.get(call.id);
    if (flight && !flight.authorized) flight.authorized = request;
    return this.#authorizer.authorize(this.#subjectOf(call), request, signal);
  }

  /** Who asks: the call, and the kind of tool it calls (`host` for a request of the embedder's own). */
  #subjectOf(call: ToolCall): AuthorizationSubject {
    return { callId: call.id, stepId: call.stepId, tool: call.tool, source: this.tools.get(call.tool)?.origin ?? 'host', delegation: call.delegation };
  }

  async #prepare(call: ToolCall, signal: AbortSignal): Promise<PreparedCall | ToolError> {
    const prepared = await prepareCall(this.tools, call, this.#baseContext(call, signal));
    if (!(prepared instanceof ToolError)) this.#reportWarnings(prepared.tool);
    return prepared;
  }

  /** A tool's declaration warnings, once per host. */
  #reportWarnings(tool: Tool): void {
    if (this.#reportedTools.has(tool)) return;
    this.#reportedTools.add(tool);
    for (const warning of tool.warnings) this.#warn(warning);
  }

  #warn(message: string): void {
    try {
      this.#options.onWarning?.(message);
    } catch {
      // A warning sink that fails has nowhere left to report to.
    }
  }

  #execute(prepared: PreparedCall, signal: AbortSignal, detached: boolean) {
    const { call } = prepared;
    const flight = this.#inFlight.get(call.id);
    const attempt = flight ? ++flight.executions : 1;
    return executeCall(
      prepared,
      signal,
      {
        base: this.#baseContext(call, signal),
        output: { options: this.#options.output ?? {}, attempt, masker: this.#environment.masker },
        withheld: (absolutePath, links) => this.withholdsRead(absolutePath, links),
        questioner: flight?.questioner ?? this.#options.questioner,
        redact: this.#options.redact ?? ((text) => text),
        emit: (event) => this.#emitFor(call.id, event),
        outputRoom: () => roomOfAll([this.#delivery.room(), flight?.room?.()]),
        authorize: (request, callSignal) => this.#authorizeOne(call, request, callSignal),
      },
      detached,
    );
  }

  #baseContext(call: ToolCall, signal: AbortSignal) {
    const host = this;
    return {
      callId: call.id,
      stepId: call.stepId,
      workspace: this.workspace,
      host: this.#environment,
      signal,
      session: this.session,
      // A getter: read when the context is spread for the tool, inside preparation's error handling.
      get confinement(): CallConfinement {
        return host.callConfinement(call);
      },
    };
  }

  #notifyFinished(call: ToolCall, result: ToolResult, authorized: CapabilityRequest | undefined): void {
    const observer = this.#observer;
    if (observer) this.#guard(() => observer.callFinished(call, result, authorized));
  }

  #emitFor(callId: string, event: HostEvent): void {
    const sink = this.#inFlight.get(callId)?.sink;
    sink?.(event);
    this.#deliver(event);
  }

  #deliver(event: RunEvent): void {
    const observer = this.#observer;
    if (observer) this.#guard(() => observer.event(event));
    this.#delivery.deliver(event);
  }

  /** The observer is called in line (it must only enqueue): what it throws or rejects with is reported once and ignored. */
  #guard(notify: () => unknown): void {
    const report = (thrown: unknown) => {
      if (this.#observerFailed) return;
      this.#observerFailed = true;
      this.#warn(`the run observer failed (${(thrown as Error)?.message ?? String(thrown)}); its later failures are not reported`);
    };
    try {
      const returned = notify();
      if (returned instanceof Promise) returned.catch(report);
    } catch (thrown) {
      report(thrown);
    }
  }
}

export { interruptReason };
export type { ToolOutput, CallOutcome, SubmitOptions, RunObserver, EventListener };
