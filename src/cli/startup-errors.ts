import { HostError, ToolError, denialKinds } from '../host/errors.js';
import { InvalidWorkflowError, formatProblem } from '../workflow/problems.js';

/**
 * The exit code for an error raised before any step ran, after printing it: an invalid
 * workflow or a usage error is 2; a denied or failed start (an MCP server's) is 3 or 1.
 * Anything else is a bug and is rethrown.
 */
export function reportStartupError(error: unknown, writeLine: (line: string) => void): number {
  if (error instanceof InvalidWorkflowError) {
    for (const problem of error.problems) writeLine(formatProblem(problem));
    return 2;
  }
  if (error instanceof HostError) {
    writeLine(`rho: ${error.message}`);
    return 2;
  }
  if (error instanceof ToolError) {
    writeLine(`rho: ${error.message}`);
    return denialKinds.has(error.kind) ? 3 : 1;
  }
  throw error;
}
