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
import type { GrantHints } from './denials.js';
import type { RunObserver } from './run-observer.js';
import { narrowWritable, planConfinement, type CacheName, type CallConfinement, type ConfinementPlan, type NetworkProxy } from './confinement/index.js';
import { ToolError, toToolError } from './errors.js';
import type { AuditRecord, HostEvent, RunEvent } from './events.js';
import type { PreToolGate } from './gates.js';
import type { Questioner } from './host-input.js';
import type { Policy, PolicyEvaluation } from './policy.js';
import type { PreparedCall, ToolCall } from './prepared-call.js';
import type { ToolRegistry } from './registry.js';
import { validateMaxParallel } from './schedule-book.js';
import { SessionState } from './session-state.js';
import type { HostEnvironment, ToolOutput, ToolResult } from './tool.js';
import { ToolHostRun } from './tool-host-run.js';
import type { Workspace } from './workspace.js';

/** Receives every event of the host's calls and of the runs it reports. Listeners never change an outcome: one that throws is reported and ignored. */
export type EventListener = (event: RunEvent) => void;


export interface ToolHostOptions {
  workspace: Workspace;
  policy: Policy;
  tools: ToolRegistry;
  environment: HostEnvironment;
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
  /** Problems that must not change an outcome (a listener that threw, an observer that failed). */
  onWarning?: (message: string) => void;
  /**
   * Watches every event and every finished call, beside the path (hook observers: see
   * `hostObservers`, which builds one from observers and the hook options). Drained by `dispose()`.
   */
  observer?: RunObserver;
  /** The run's filtering proxy for confined processes whose network is `network(HOST)` rules; without one they get none. */
  networkProxy?: NetworkProxy;
  /** The well-known caches confined processes may write (`policy.caches`). */
  caches?: readonly CacheName[];
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
}

/** A call in flight: where its own events go, and how `dispose()` ends it. */
interface InFlight extends CallExtras {
  stop(): void;
  done: Promise<void>;
  /** The first request the call put to authorization. */
  authorized: CapabilityRequest | undefined;
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
  readonly #listeners: EventListener[] = [];
  readonly #failedListeners = new Set<EventListener>();
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
    if (options.onEvent) this.#listeners.push(options.onEvent);
    this.#observer = options.observer;
    this.#authorizer = new Authorizer({
      policy: options.policy,
      workspaceRoot: options.workspace.root,
      gates: options.gates ?? [],
      scripted: options.scripted ?? { rules: [], yes: false },
      approver: options.approver,
      ...(options.grantHints && { hints: options.grantHints }),
      emit: (callId: string, event: HostEvent) => this.#emitFor(callId, event),
    });
    this.#steps = {
      prepare: (call, signal) => prepareCall(this.tools, call, this.#baseContext(call, signal)),
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
    };
  }

  /** Adds an event listener; returns a function that removes it. */
  subscribe(listener: EventListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners.indexOf(listener);
      if (index >= 0) this.#listeners.splice(index, 1);
    };
  }

  /** Reports a run-level event (a workflow's start, a step's end in model order) to this host's listeners. */
  publish(event: Extract<RunEvent, { type: 'run_started' | 'step_finished' | 'run_finished' }>): void {
    this.#deliver(event);
  }

  /** The host facts calls see (environment, secret names, process env mode). */
  get environment(): HostEnvironment {
    return this.#options.environment;
  }

  /** What the policy alone would decide for a request (for `rho plan`); no gate or approver is asked. */
  evaluatePolicy(request: CapabilityRequest): PolicyEvaluation {
    return this.#options.policy.evaluate(request, this.workspace.root);
  }

  /** What the policy lets every confined process touch (writable roots, hidden paths, network). */
  get confinementPlan(): ConfinementPlan {
    const { environment } = this.#options;
    this.#plan ??= planConfinement({
      policy: this.#options.policy,
      workspaceRoot: this.workspace.root,
      grantedRoots: this.workspace.grantedRoots,
      homeDirectories: environment.homeDirectories ?? [],
      home: environment.home,
      // Where a tool keeps its cache or installation follows the variables its processes get.
      variables: { ...environment.env, ...environment.processVariables },
      caches: this.#options.caches ?? [],
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
    const status = this.#options.environment.sandbox ?? { confined: false, mode: 'off', reason: 'this host does not confine processes' };
    const narrowed = call.writes !== undefined;
    const { home } = this.#options.environment;
    const plan = call.writes ? narrowWritable(this.confinementPlan, call.writes, this.workspace.root, home) : this.confinementPlan;
    const proxy =
      status.confined && plan.network.mode === 'proxy'
        ? this.#options.networkProxy?.endpoint((request, signal) => this.#authorizeOne(call, request, signal))
        : undefined;
    return { status, plan, ...(narrowed && { narrowed: true }), ...(proxy && { proxy }), ...(home !== undefined && { home }) };
  }

  /** Whether a path inside a tree read that was authorized is still kept back by a `deny` or `ask` read rule. */
  withholdsRead(absolute: string): boolean {
    return this.#options.policy.withholdsRead(absolute, this.workspace.root);
  }

  auditSnapshot(): readonly AuditRecord[] {
    return this.#authorizer.auditSnapshot();
  }

  /**
   * What a call would ask for and touch, for `rho plan`: it is prepared, never authorized or
   * executed, and what comes back cannot be executed.
   */
  async preview(call: ToolCall, signal: AbortSignal): Promise<CallPreview | ToolError> {
    const prepared = await prepareCall(this.tools, call, this.#baseContext(call, signal));
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
    return this.#invokeWith(call, signal, undefined, undefined);
  }

  /**
   * Starts one call and returns at once: its events, answers to its questions through
   * `respond()`, `cancel()`, and the final result. Same path as `invoke`.
   */
  start(call: ToolCall): ToolHostRun {
    const controller = new AbortController();
    const run = new ToolHostRun(call.id, call.stepId ?? call.id, controller, (questioner) => this.#invokeWith(call, controller.signal, (event) => run.accept(event), questioner));
    return run;
  }

  /**
   * Authorizes one request the run makes for something other than a call (starting a workflow's
   * MCP server), on the same path as a call's requests; the refusal is returned.
   */
  async authorizeRequest(subject: ToolCall, request: CapabilityRequest, signal: AbortSignal): Promise<ToolError | undefined> {
    try {
      await this.#authorizer.authorize({ callId: subject.id, stepId: subject.stepId, tool: subject.tool, delegation: subject.delegation }, request, signal);
      return undefined;
    } catch (thrown) {
      return toToolError(thrown, 'policy_denied');
    }
  }

  /** Ends the host: cancels calls in flight, waits for them briefly, stops what calls left running; returns notices about it. */
  async dispose(): Promise<readonly string[]> {
    const flights = [...this.#inFlight.values()];
    for (const flight of flights) flight.stop();
    await raceAbort(Promise.all(flights.map((flight) => flight.done)), AbortSignal.timeout(abortGraceMs)).catch(() => {});
    const notices = await this.session.dispose();
    await this.#observer?.drain?.();
    return notices;
  }

  async #invokeWith(call: ToolCall, signal: AbortSignal, sink: InFlight['sink'], questioner: Questioner | undefined): Promise<ToolResult> {
    const ticket = this.#reserveFor({ sink, questioner });
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
      authorized: undefined,
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

  #authorizeOne(call: ToolCall, request: CapabilityRequest, signal: AbortSignal): Promise<void> {
    const flight = this.#inFlight.get(call.id);
    if (flight && !flight.authorized) flight.authorized = request;
    return this.#authorizer.authorize({ callId: call.id, stepId: call.stepId, tool: call.tool, delegation: call.delegation }, request, signal);
  }

  #execute(prepared: PreparedCall, signal: AbortSignal, detached: boolean) {
    const { call } = prepared;
    const flight = this.#inFlight.get(call.id);
    return executeCall(
      prepared,
      signal,
      {
        base: this.#baseContext(call, signal),
        withheld: (absolutePath, links) => this.#options.policy.withholdsRead(absolutePath, this.workspace.root, links),
        questioner: flight?.questioner ?? this.#options.questioner,
        redact: this.#options.redact ?? ((text) => text),
        emit: (event) => this.#emitFor(call.id, event),
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
      host: this.#options.environment,
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
    if (!observer) return;
    try {
      observer.callFinished(call, result, authorized);
    } catch (thrown) {
      this.#options.onWarning?.(`the run observer threw: ${(thrown as Error)?.message ?? String(thrown)}`);
    }
  }

  #emitFor(callId: string, event: HostEvent): void {
    const sink = this.#inFlight.get(callId)?.sink;
    if (sink) this.#guard(sink, event);
    this.#deliver(event);
  }

  #deliver(event: RunEvent): void {
    if (this.#observer) this.#guard(this.#observerEvent, event);
    for (const listener of this.#listeners) this.#guard(listener, event);
  }

  readonly #observerEvent = (event: RunEvent) => this.#observer?.event(event);

  /** A listener sits beside the call's path, never on it: what it throws is reported once and ignored. */
  #guard(listener: (event: never) => void, event: RunEvent): void {
    try {
      (listener as (event: RunEvent) => void)(event);
    } catch (thrown) {
      const key = listener as EventListener;
      if (this.#failedListeners.has(key)) return;
      this.#failedListeners.add(key);
      this.#options.onWarning?.(`an event listener threw (${(thrown as Error)?.message ?? String(thrown)}); its later failures are not reported`);
    }
  }
}

export { interruptReason };
export type { ToolOutput, CallOutcome, SubmitOptions, RunObserver };
