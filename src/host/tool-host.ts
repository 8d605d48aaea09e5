import { parseArguments } from './arguments.js';
import type { Approver } from './approval.js';
import { abortGraceMs, followingController, raceAbort } from './abort.js';
import { Authorizer, type ScriptedApprovals } from './authorization.js';
import type { CapabilityRequest } from './capability.js';
import { Deadline } from './deadline.js';
import { ToolError, toToolError, denialKinds } from './errors.js';
import type { AuditRecord, EventSink, HostEvent } from './events.js';
import type { PreToolGate } from './gates.js';
import { isHostInput, validateHostInputResponse, type HostInput, type HostInputResponse, type Questioner } from './host-input.js';
import type { Policy, PolicyEvaluation } from './policy.js';
import type { PreparedCall, ToolCall } from './prepared-call.js';
import { ToolHostRun } from './tool-host-run.js';
import type { ToolRegistry } from './registry.js';
import { SessionState } from './session-state.js';
import type { ExecuteContext, PrepareContext, HostEnvironment, ToolOutput, ToolResult, ToolStatus } from './tool.js';
import type { Workspace } from './workspace.js';

export interface ToolHostOptions {
  workspace: Workspace;
  policy: Policy;
  tools: ToolRegistry;
  environment: HostEnvironment;
  approver?: Approver;
  scripted?: ScriptedApprovals;
  questioner?: Questioner;
  gates?: readonly PreToolGate[];
  onEvent?: EventSink;
}

export interface ExecuteOptions {
  /** When the call's clock started (before preparation), for its reported duration. */
  startedAt?: number;
  /** The call runs detached (an `async: true` step): nobody waits on it, so it may not ask questions. */
  detached?: boolean;
}

/** Why a signal was aborted: an interrupt (SIGINT) is reported differently from a cancellation. */
export const interruptReason = 'interrupt';

/**
 * Runs registered tools without a model: every call is prepared, authorized (policy → gates →
 * remembered → scripted → approver), executed with a limit, and reported as a typed result.
 */
export class ToolHost {
  readonly workspace: Workspace;
  readonly tools: ToolRegistry;
  /** State shared by this host's calls (background processes), cleaned up by `dispose()`. */
  readonly session = new SessionState();
  private readonly authorizer: Authorizer;
  private readonly listeners: EventSink[] = [];
  /** The first request each running call put to the authorization path (for after_tool_use hooks). */
  private readonly firstAuthorized = new Map<string, CapabilityRequest>();
  /** Questioners of calls started with `start()`, which answer through `respond()`. */
  private readonly questioners = new Map<string, Questioner>();

  constructor(private readonly options: ToolHostOptions) {
    this.workspace = options.workspace;
    this.tools = options.tools;
    if (options.onEvent) this.listeners.push(options.onEvent);
    this.authorizer = new Authorizer({
      policy: options.policy,
      workspaceRoot: options.workspace.root,
      gates: options.gates ?? [],
      scripted: options.scripted ?? { rules: [], yes: false },
      approver: options.approver,
      emit: (event) => this.emit(event),
    });
  }

  /** Adds an event listener; returns a function that removes it. */
  subscribe(listener: EventSink): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  /** The host facts calls see (environment, secret names, process env mode). */
  get environment(): HostEnvironment {
    return this.options.environment;
  }

  /** What the policy alone would decide for a request (for `rho plan`); no gate or approver is asked. */
  evaluatePolicy(request: CapabilityRequest): PolicyEvaluation {
    return this.options.policy.evaluate(request, this.workspace.root);
  }

  auditSnapshot(): readonly AuditRecord[] {
    return this.authorizer.auditSnapshot();
  }

  /** Ends the run's session: stops what calls left running and returns notices about it. */
  dispose(): Promise<readonly string[]> {
    return this.session.dispose();
  }

  /**
   * Starts one call and returns at once: its events, answers to its questions through
   * `respond()`, `cancel()`, and the final result. Same path as `invoke`.
   */
  start(call: ToolCall): ToolHostRun {
    const controller = new AbortController();
    const run = new ToolHostRun(call.id, controller, async (questioner) => {
      this.questioners.set(call.id, questioner);
      const unsubscribe = this.subscribe((event) => run.accept(event));
      try {
        return await this.invoke(call, controller.signal);
      } finally {
        unsubscribe();
        this.questioners.delete(call.id);
      }
    });
    return run;
  }

  /** Runs one call to completion: prepare → authorize → execute → finish. Never throws for a tool's failure. */
  async invoke(call: ToolCall, signal: AbortSignal = new AbortController().signal): Promise<ToolResult> {
    const startedAt = performance.now();
    const prepared = await this.prepare(call, signal);
    if (prepared instanceof ToolError) return this.reportFailure(call, prepared, signal, startedAt);
    const denial = await this.authorize(prepared, signal);
    if (denial) return this.reportFailure(call, denial, signal, startedAt);
    return this.execute(prepared, signal, { startedAt });
  }

  /** Parses and resolves a call once; returns the typed error instead of throwing. */
  async prepare(call: ToolCall, signal: AbortSignal): Promise<PreparedCall | ToolError> {
    const tool = this.tools.get(call.tool);
    if (!tool) return new ToolError('unknown_tool', `no tool named ${call.tool} is registered`);
    const timeoutMs = call.timeoutMs ?? tool.timeoutMs;
    try {
      const args = parseArguments(tool.name, tool.schema, call.args);
      if (!('prepare' in tool) || tool.executionPolicy !== 'resource-aware') {
        if (!('run' in tool)) throw new ToolError('internal', `tool ${call.tool} has neither prepare nor run`);
        const run = tool.run.bind(tool, args);
        return { kind: 'exclusive', call, tool, timeoutMs, requests: [], resources: undefined, summary: undefined, run };
      }
      const plan = await tool.prepare(args, this.prepareContext(call, timeoutMs, signal));
      return { kind: 'planned', call, tool, timeoutMs, ...plan, summary: plan.summary };
    } catch (thrown) {
      return toToolError(thrown, 'invalid_arguments');
    }
  }

  /** Authorizes every request a planned call declared, in order; the first refusal is returned. */
  async authorize(prepared: PreparedCall, signal: AbortSignal): Promise<ToolError | undefined> {
    for (const request of prepared.requests) {
      try {
        await this.authorizeOne(prepared.call, request, signal);
      } catch (thrown) {
        return toToolError(thrown, 'policy_denied');
      }
    }
    return undefined;
  }

  /**
   * Authorizes one request the run makes for something other than a step (starting a workflow's
   * MCP server), on the same path as a call's requests; the refusal is returned.
   */
  async authorizeRequest(subject: ToolCall, request: CapabilityRequest, signal: AbortSignal): Promise<ToolError | undefined> {
    try {
      await this.authorizeOne(subject, request, signal);
      return undefined;
    } catch (thrown) {
      return toToolError(thrown, 'policy_denied');
    }
  }

  /** Executes an authorized call under its wall limit and reports its result. */
  async execute(prepared: PreparedCall, signal: AbortSignal, options: ExecuteOptions = {}): Promise<ToolResult> {
    const { call } = prepared;
    const startedAt = options.startedAt ?? performance.now();
    if (signal.aborted) return this.reportFailure(call, new ToolError('cancelled', `${call.tool} was cancelled before it started`), signal, startedAt);
    this.emit({ type: 'call_started', callId: call.id, stepId: call.stepId, tool: call.tool });
    const { controller, dispose: unlink } = followingController(signal);
    const deadline = new Deadline(prepared.timeoutMs, () => controller.abort(new Error('timeout')));
    const callSignal = controller.signal;
    const context = this.executeContext(call, prepared.timeoutMs, callSignal, deadline, options.detached ?? false);
    try {
      const work =
        prepared.kind === 'planned'
          ? prepared.execute(context)
          : prepared.run({ ...context, authorize: (request) => this.authorizeOne(call, request, callSignal) });
      const output = await raceAbort(work, callSignal, abortGraceMs);
      return this.finish(call, { status: 'success', output }, startedAt);
    } catch (thrown) {
      const error = deadline.expired
        ? new ToolError('timeout', `${call.tool} did not finish within ${formatMs(prepared.timeoutMs)}`)
        : toToolError(thrown);
      return this.finish(call, failed(call, error, signal), startedAt);
    } finally {
      deadline.dispose();
      unlink();
    }
  }

  /** Reports a call that failed before it executed (preparation, authorization, scheduling). */
  reportFailure(call: ToolCall, error: ToolError, signal: AbortSignal, startedAt = performance.now()): ToolResult {
    return this.finish(call, failed(call, error, signal), startedAt);
  }

  private prepareContext(call: ToolCall, timeoutMs: number, signal: AbortSignal): PrepareContext {
    return {
      callId: call.id,
      stepId: call.stepId,
      workspace: this.workspace,
      host: this.options.environment,
      signal,
      timeoutMs,
      session: this.session,
    };
  }

  private executeContext(call: ToolCall, timeoutMs: number, signal: AbortSignal, deadline: Deadline, detached: boolean): ExecuteContext {
    return {
      ...this.prepareContext(call, timeoutMs, signal),
      withheld: (absolutePath) => this.options.policy.withholdsRead(absolutePath, this.workspace.root),
      progress: (update) => this.emit({ type: 'call_progress', callId: call.id, stepId: call.stepId, ...update }),
      ask: (input) =>
        detached
          ? Promise.reject(new ToolError('unsupported', `${call.tool} asked a question, but a detached (async) step cannot ask questions`))
          : this.ask(call, input, signal, deadline),
    };
  }

  private async ask(call: ToolCall, input: HostInput, signal: AbortSignal, deadline: Deadline): Promise<HostInputResponse> {
    const questioner = this.questioners.get(call.id) ?? this.options.questioner;
    if (!questioner) throw new ToolError('unsupported', `${call.tool} asked a question, but this host has no way to ask one`);
    if (!isHostInput(input)) throw new ToolError('internal', `${call.tool} asked questions that were not built with createHostInput`);
    this.emit({ type: 'question_asked', callId: call.id, stepId: call.stepId, questionIds: input.questions.map((q) => q.id) });
    deadline.pause();
    try {
      const response = validateHostInputResponse(input, await questioner.ask({ ...input, callId: call.id, stepId: call.stepId, tool: call.tool }, signal));
      this.emit({ type: 'question_answered', callId: call.id, stepId: call.stepId, source: response.source });
      return response;
    } finally {
      deadline.resume();
    }
  }

  private authorizeOne(call: ToolCall, request: CapabilityRequest, signal: AbortSignal): Promise<void> {
    if (!this.firstAuthorized.has(call.id)) this.firstAuthorized.set(call.id, request);
    return this.authorizer.authorize({ callId: call.id, stepId: call.stepId, tool: call.tool }, request, signal);
  }

  private finish(call: ToolCall, outcome: Pick<ToolResult, 'status' | 'output' | 'error'>, startedAt: number): ToolResult {
    const result: ToolResult = { callId: call.id, tool: call.tool, ...outcome, durationMs: performance.now() - startedAt };
    const authorized = this.firstAuthorized.get(call.id);
    this.firstAuthorized.delete(call.id);
    this.emit({ type: 'call_finished', callId: call.id, stepId: call.stepId, result, authorized });
    return result;
  }

  private emit(event: HostEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** The result of a call that did not succeed, with the status its error implies. */
export function failed(call: ToolCall, error: ToolError, signal: AbortSignal): Pick<ToolResult, 'status' | 'error'> {
  let status: ToolStatus = 'failure';
  if (denialKinds.has(error.kind)) status = 'denied';
  else if (signal.aborted) status = signal.reason === interruptReason ? 'interrupted' : 'cancelled';
  else if (error.kind === 'cancelled') status = 'cancelled';
  return { status, error: signal.aborted && !denialKinds.has(error.kind) ? cancellationError(call, signal) : error };
}

function cancellationError(call: ToolCall, signal: AbortSignal): ToolError {
  return signal.reason === interruptReason
    ? new ToolError('interrupted', `${call.tool} was interrupted`)
    : new ToolError('cancelled', `${call.tool} was cancelled`);
}

export function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

export type { ToolOutput };
