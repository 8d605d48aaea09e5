import { abortGraceMs, followingController, raceAbort } from './abort.js';
import type { CapabilityRequest } from './capability.js';
import { Deadline } from './deadline.js';
import { ToolError, toToolError } from './errors.js';
import type { HostEvent } from './events.js';
import { formatMs } from './format-ms.js';
import { isHostInput, validateHostInputResponse, type HostInput, type HostInputResponse, type Questioner } from './host-input.js';
import type { PreparedCall, ToolCall } from './prepared-call.js';
import type { SecretMasker } from './masking.js';
import { checkToolOutput } from './output-contract.js';
import { boundedProgress } from './progress.js';
import { StepOutput, type OutputOptions } from './step-output.js';
import type { ExecuteContext, PrepareContext, Tool, ToolOutput } from './tool.js';

/** What executing one authorized call needs from its host. */
export interface ExecutionDeps {
  /** The context a tool was prepared with; execution adds progress, output, questions and walks. */
  base: Omit<PrepareContext, 'timeoutMs' | 'signal'>;
  /** Where the attempt's output goes: how much its events carry, its log, and the secrets masked in both. */
  output: { options: OutputOptions; attempt: number; masker: SecretMasker | undefined };
  withheld(absolutePath: string, links?: number): boolean;
  questioner: Questioner | undefined;
  /** Masks secrets in progress text before it is cut to its bound. */
  redact: (text: string) => string;
  emit(event: HostEvent): void;
  /** While the host's event listeners are behind on output they must keep, a promise of room (`ExecuteContext.outputRoom`). */
  outputRoom(): Promise<void> | undefined;
  /** For exclusive tools, which authorize as they go, on the same path as prepared calls. */
  authorize(request: CapabilityRequest, signal: AbortSignal): Promise<void>;
}

/** How an attempt ended, and where its whole output is kept when it printed any. */
export type ExecutionOutcome = ({ status: 'success'; output: ToolOutput } | { status: 'failed'; error: ToolError }) & { log?: string };

/**
 * Executes an authorized call under its wall limit: the tool gets a context that can no longer
 * authorize (a prepared call) and whose progress is bounded. Never throws for a tool's failure.
 */
export async function executeCall(prepared: PreparedCall, signal: AbortSignal, deps: ExecutionDeps, detached: boolean): Promise<ExecutionOutcome> {
  const { call } = prepared;
  const { controller, dispose: unlink } = followingController(signal);
  const deadline = new Deadline(prepared.timeoutMs, () => controller.abort(new ToolError('timeout', 'timeout')));
  const callSignal = controller.signal;
  const stepId = stepIdOf(call);
  const output = new StepOutput({ stepId, attempt: deps.output.attempt, options: deps.output.options, masker: deps.output.masker, emit: deps.emit });
  const context: ExecuteContext = {
    ...deps.base,
    signal: callSignal,
    timeoutMs: prepared.timeoutMs,
    withheld: deps.withheld,
    progress: boundedProgress((update) => deps.emit({ type: 'step_progress', stepId, ...update }), deps.redact),
    output: (stream, chunk) => output.write(stream, chunk),
    outputRoom: deps.outputRoom,
    ask: (input) =>
      detached
        ? Promise.reject(new ToolError('unsupported', `${call.tool} asked a question, but a detached (async) step cannot ask questions`))
        : ask(call, input, signal, deadline, deps),
  };
  // What the tool itself threw once stopped: raceAbort rejects with the abort reason instead.
  let toolFailure: unknown;
  try {
    const started = prepared.kind === 'planned' ? prepared.execute(context) : prepared.run({ ...context, authorize: (request) => deps.authorize(request, callSignal) });
    const work = started.catch((error: unknown) => {
      toolFailure = error;
      throw error;
    });
    const result = checkedOutput(prepared.tool, await raceAbort(work, callSignal, abortGraceMs));
    output.end();
    return { status: 'success', output: result, ...logOf(output) };
  } catch (thrown) {
    const error = deadline.expired ? stepTimeout(call, prepared.timeoutMs, toolFailure ?? thrown) : toToolError(thrown);
    output.end();
    return { status: 'failed', error, ...logOf(output) };
  } finally {
    deadline.dispose();
    unlink();
  }
}

/**
 * What a tool returned, checked against the output contract unless the tool is one of rho's
 * built-ins: those build their outputs from their own typed code (a process step's data is made
 * field by field from its exit), so a zod parse of every result, per call, would only re-check
 * rho against itself; their tests check them against the schemas they declare. Tools from the
 * embedder, a workflow's modules and MCP servers are checked on every call.
 */
function checkedOutput(tool: Tool, returned: unknown): ToolOutput {
  return tool.origin === 'built-in' ? (returned as ToolOutput) : checkToolOutput(tool, returned);
}

function logOf(output: StepOutput): { log?: string } {
  const place = output.logPlace;
  return place === undefined ? {} : { log: place };
}

/** The call's own limit expired: what the tool had produced is kept, marked as timed out. */
function stepTimeout(call: ToolCall, timeoutMs: number, thrown: unknown): ToolError {
  const partial = thrown instanceof ToolError ? thrown.output : undefined;
  const data = partial?.data;
  const output = partial && {
    text: partial.text,
    data: data !== null && typeof data === 'object' && 'timed_out' in data ? { ...data, timed_out: true } : data,
  };
  return new ToolError('timeout', `${call.tool} did not finish within ${formatMs(timeoutMs)}`, { ...(output && { output }) });
}

async function ask(call: ToolCall, input: HostInput, signal: AbortSignal, deadline: Deadline, deps: ExecutionDeps): Promise<HostInputResponse> {
  const questioner = deps.questioner;
  if (!questioner) throw new ToolError('unsupported', `${call.tool} asked a question, but this host has no way to ask one`);
  if (!isHostInput(input)) throw new ToolError('internal', `${call.tool} asked questions that were not built with createHostInput`);
  const stepId = stepIdOf(call);
  deps.emit({ type: 'question_asked', stepId, questionIds: input.questions.map((q) => q.id) });
  deadline.pause();
  try {
    const response = validateHostInputResponse(input, await questioner.ask({ ...input, callId: call.id, stepId: call.stepId, tool: call.tool }, signal));
    deps.emit({ type: 'question_answered', stepId, source: response.source });
    return response;
  } finally {
    deadline.resume();
  }
}

/** The id a call's events carry: its step's, or its own when the library runs it without a step. */
export function stepIdOf(call: ToolCall): string {
  return call.stepId ?? call.id;
}
