import { builtinRegistry } from '../workflow/builtin-registry.js';
import { loadWorkflowFile } from '../workflow/load.js';
import { matrixForCi } from '../workflow/matrix-output.js';
import type { RunStreams } from './run-workflow.js';
import { reportStartupError } from './startup-errors.js';

/** Prints one matrix step's cells as JSON for a CI engine's own matrix; exit 2 when there is none. */
export async function printMatrixCommand(request: { file: string; task?: string; step?: string }, streams: RunStreams): Promise<number> {
  try {
    const { workflow } = await loadWorkflowFile(request.file, builtinRegistry(), 'skip', { task: request.task });
    streams.stdout.write(`${JSON.stringify(matrixForCi(workflow, request.step))}\n`);
    return 0;
  } catch (error) {
    return reportStartupError(error, (line) => streams.stderr.write(`${line}\n`));
  }
}
