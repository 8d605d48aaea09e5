import { checkWorkflowFile } from '../workflow/load.js';
import { builtinRegistry } from '../workflow/builtin-registry.js';
import { formatProblem } from '../workflow/problems.js';
import { formatTaskListing, listTasks, type TaskListing } from '../workflow/task-list.js';
import { SecretMasker } from '../host/masking.js';
import { guardStreams } from '../ui/render/guarded-sink.js';
import { streamTargets, type CliEnvironment } from './environment.js';
import type { RunStreams } from './run-workflow.js';

/**
 * Lists a workflow's tasks (or returns them for --json); exit 2 when the file is invalid. The
 * listing and the problems quote the file, so they go through the guarded streams.
 */
export async function listTasksCommand(
  file: string,
  rawStreams: RunStreams,
  environment: CliEnvironment,
  options: { print: boolean },
): Promise<{ exitCode: number; listing?: TaskListing }> {
  const streams = guardStreams(rawStreams, new SecretMasker(), streamTargets(environment));
  const { workflow, problems, extensions } = await checkWorkflowFile(file, builtinRegistry(), 'skip');
  for (const problem of [...problems, ...(extensions?.warnings ?? [])]) streams.stderr.write(`${formatProblem(problem)}\n`);
  if (!workflow || problems.length > 0) return { exitCode: 2 };
  const listing = listTasks(file, workflow.file);
  if (options.print) for (const line of formatTaskListing(listing)) streams.stdout.write(`${line}\n`);
  return { exitCode: 0, listing };
}
