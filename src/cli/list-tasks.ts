import { workflowParseCache } from './cache-places.js';
import { checkWorkflowFile } from '../workflow/load.js';
import { builtinRegistry } from '../workflow/builtin-registry.js';
import { formatProblem } from '../workflow/problems.js';
import { formatTaskListing, listTasks, taskWords, type TaskListing } from '../workflow/task-list.js';
import type { CliEnvironment, RunStreams } from './environment.js';
import { guardedOutput } from './guarded-output.js';
import { resolveRunTarget } from './run-target.js';
import { exitCodes } from '../host/exit-codes.js';
import { reportStartupError } from './startup-errors.js';

/**
 * Lists a workflow's tasks (or returns them for --json); exit 2 when the file is invalid or none
 * is found. The listing and the problems quote the file, so they go through the guarded streams.
 */
export async function listTasksCommand(
  named: string | undefined,
  rawStreams: RunStreams,
  environment: CliEnvironment,
  options: { print: 'listing' | 'names' | 'nothing' },
): Promise<{ exitCode: number; listing?: TaskListing }> {
  const { streams, warn } = guardedOutput(rawStreams, environment);
  let file: string;
  try {
    ({ file } = await resolveRunTarget(named === undefined ? [] : [named], process.cwd(), false));
  } catch (error) {
    return { exitCode: reportStartupError(error, warn) };
  }
  const { workflow, problems, extensions } = await checkWorkflowFile(file, builtinRegistry(), 'skip', { parseCache: workflowParseCache(environment.env) });
  for (const problem of [...problems, ...(extensions?.warnings ?? [])]) streams.stderr.write(`${formatProblem(problem)}\n`);
  if (!workflow || problems.length > 0) return { exitCode: exitCodes.usage };
  const listing = listTasks(file, workflow.file);
  const lines = options.print === 'listing' ? formatTaskListing(listing) : options.print === 'names' ? taskWords(listing) : [];
  for (const line of lines) streams.stdout.write(`${line}\n`);
  return { exitCode: exitCodes.success, listing };
}
