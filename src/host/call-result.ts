import { ToolError, denialKinds } from './errors.js';
import type { ToolStatus } from './events.js';
import type { ToolCall } from './prepared-call.js';
import type { ToolOutput, ToolResult } from './tool.js';

/** Why a signal was aborted: an interrupt (SIGINT) is reported differently from a cancellation. */
export const interruptReason = 'interrupt';

export function succeeded(call: ToolCall, output: ToolOutput, durationMs: number): ToolResult {
  return { callId: call.id, tool: call.tool, status: 'success', output, durationMs };
}

/** The result of a call that did not succeed, with the status its error implies. */
export function failedResult(call: ToolCall, error: ToolError, signal: AbortSignal, durationMs: number): ToolResult {
  let status: Exclude<ToolStatus, 'success'> = 'failure';
  if (denialKinds.has(error.kind)) status = 'denied';
  else if (signal.aborted) status = signal.reason === interruptReason ? 'interrupted' : 'cancelled';
  else if (error.kind === 'cancelled') status = 'cancelled';
  const reported = signal.aborted && !denialKinds.has(error.kind) ? cancellationError(call, signal) : error;
  // What a failed tool produced stays readable; a call the run cancelled reports no output.
  const output = reported === error ? error.output : undefined;
  return { callId: call.id, tool: call.tool, status, error: reported, ...(output && { output }), durationMs };
}

function cancellationError(call: ToolCall, signal: AbortSignal): ToolError {
  return signal.reason === interruptReason ? new ToolError('interrupted', `${call.tool} was interrupted`) : new ToolError('cancelled', `${call.tool} was cancelled`);
}
