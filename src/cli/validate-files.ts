import { checkWorkflowFile } from '../workflow/load.js';
import { builtinRegistry } from '../workflow/launch.js';
import { formatProblem } from '../workflow/problems.js';
import type { RunStreams } from './run-workflow.js';

/** Validates each file, printing every problem; returns 2 when any file is invalid. */
export async function validateWorkflowFiles(files: readonly string[], streams: RunStreams): Promise<number> {
  const tools = builtinRegistry();
  let invalid = 0;
  for (const file of files) {
    const { problems, extensions } = await checkWorkflowFile(file, tools);
    for (const problem of [...problems, ...(extensions?.warnings ?? [])]) streams.stderr.write(`${formatProblem(problem)}\n`);
    if (problems.length > 0) invalid++;
    else streams.stdout.write(`${file}: valid\n`);
  }
  return invalid > 0 ? 2 : 0;
}
