import { ToolError } from './errors.js';
import type { ToolStatus } from './events.js';
import { checkToolOutput } from './output-contract.js';
import type { Tool, ToolOrigin, ToolOutput, ToolResult } from './tool.js';

/** What a result rewriter is shown of one finished call. */
export interface ResultRewriteInput {
  readonly callId: string;
  readonly stepId: string | undefined;
  readonly tool: string;
  readonly source: ToolOrigin;
  readonly status: ToolStatus;
  /** What the tool returned (for a failed call, what it produced before it failed). */
  readonly output: ToolOutput;
}

/**
 * Sees each call's output after the call and before its caller, its events' listeners or a
 * workflow's later steps do, and may replace it — the place to redact a secret from what a
 * tool returned. It returns the output to use instead, or undefined to keep it. A replaced
 * output is checked against the tool's contract and announced (`step_output_rewritten`, and
 * `rewrittenBy` on the result): a rewrite is never silent. A rewriter that fails, or returns
 * something that is not an output, fails the call and withholds the output.
 */
export interface ResultRewriter {
  readonly name: string;
  rewrite(input: ResultRewriteInput, signal: AbortSignal): ToolOutput | undefined | Promise<ToolOutput | undefined>;
}

/** The result with its output as the rewriter leaves it; `announce` is called when it was replaced. */
export async function rewriteResult(
  rewriter: ResultRewriter,
  tool: Tool,
  stepId: string | undefined,
  result: ToolResult,
  signal: AbortSignal,
  announce: () => void,
): Promise<ToolResult> {
  const { output } = result;
  if (!output) return result;
  const withheld = (why: string, cause: unknown): ToolResult => {
    const error = new ToolError('execution_failed', `the result rewriter ${rewriter.name} failed on the output of ${tool.name}, so it is withheld: ${why}`, { cause });
    return { callId: result.callId, tool: result.tool, durationMs: result.durationMs, status: 'failure', error };
  };
  let returned: unknown;
  try {
    returned = await rewriter.rewrite(Object.freeze({ callId: result.callId, stepId, tool: tool.name, source: tool.origin, status: result.status, output }), signal);
  } catch (thrown) {
    return withheld(thrown instanceof Error ? thrown.message : String(thrown), thrown);
  }
  let rewritten: ToolOutput | undefined;
  try {
    rewritten = returned === undefined ? undefined : checkToolOutput(tool, returned);
  } catch (thrown) {
    return withheld(`what it returned is not an output (${(thrown as Error).message})`, thrown);
  }
  if (rewritten === undefined) return result;
  announce();
  if (result.status === 'success') return { ...result, output: rewritten, rewrittenBy: rewriter.name };
  const { kind, message, details, cause } = result.error;
  const error = new ToolError(kind, message, { details: { ...details }, output: { text: rewritten.text, data: rewritten.data }, ...(cause !== undefined && { cause }) });
  return { ...result, error, output: rewritten, rewrittenBy: rewriter.name };
}
