import { workflowParseCache } from './cache-places.js';
import { checkWorkflowFile } from '../workflow/load.js';
import { builtinRegistry } from '../workflow/builtin-registry.js';
import { formatProblem } from '../workflow/problems.js';
import { runningUserHome } from '../workflow/user-home.js';
import type { CliEnvironment, RunStreams } from './environment.js';
import { guardedOutput } from './guarded-output.js';
import { resolveRunTarget } from './run-target.js';
import { exitCodes } from '../host/exit-codes.js';
import { reportStartupError } from './startup-errors.js';

/**
 * Validates each file, printing every problem; returns 2 when any file is invalid. No workflow
 * code runs: tool modules are not imported and MCP servers are not started; what that leaves
 * uninspected is printed as notes. Problems quote the file (an untrusted pull request's, in CI),
 * so they go through the guarded streams.
 */
export async function validateWorkflowFiles(named: readonly string[], rawStreams: RunStreams, environment: CliEnvironment): Promise<number> {
  const { streams, warn } = guardedOutput(rawStreams, environment);
  let files = named;
  if (files.length === 0) {
    try {
      files = [(await resolveRunTarget([], process.cwd(), false)).file];
    } catch (error) {
      return reportStartupError(error, warn);
    }
  }
  const tools = builtinRegistry();
  const homeDirectory = runningUserHome(environment.env) ?? null;
  let invalid = 0;
  for (const file of files) {
    const { problems, warnings, notes } = await checkWorkflowFile(file, tools, 'skip', { homeDirectory, everyTask: true, parseCache: workflowParseCache(environment.env) });
    for (const problem of [...problems, ...warnings, ...notes]) streams.stderr.write(`${formatProblem(problem)}\n`);
    if (problems.length > 0) invalid++;
    else streams.stdout.write(`${file}: valid\n`);
  }
  return invalid > 0 ? exitCodes.usage : exitCodes.success;
}
