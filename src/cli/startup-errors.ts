import { RhoError } from '../host/errors.js';
import { exitCodeOfError } from '../host/exit-codes.js';
import { InvalidWorkflowError, formatProblem } from '../workflow/problems.js';

/**
 * The exit code for an error raised before any step ran, after printing it, from the one table
 * of exit codes: an invalid workflow or a usage error is 2; a denied or failed start (an MCP
 * server's) is 3 or 1. Anything that is not one of rho's errors is a bug and is rethrown.
 */
export function reportStartupError(error: unknown, writeLine: (line: string) => void): number {
  if (error instanceof InvalidWorkflowError) {
    for (const problem of error.problems) writeLine(formatProblem(problem));
    return exitCodeOfError(error);
  }
  if (error instanceof RhoError) {
    writeLine(`rho: ${error.message}`);
    return exitCodeOfError(error);
  }
  throw error;
}
