import { workflowParseCache } from './cache-places.js';
import { builtinRegistry } from '../workflow/builtin-registry.js';
import { loadWorkflowFile } from '../workflow/load.js';
import { matrixForCi, matrixPairs } from '../workflow/matrix-output.js';
import type { RunStreams } from './environment.js';
import { HostError } from '../host/errors.js';
import { exitCodes } from '../host/exit-codes.js';
import { resolveRunTarget } from './run-target.js';
import { reportStartupError } from './startup-errors.js';

/** Prints one matrix step's cells as JSON for a CI engine's own matrix (or the NAME=VALUE pairs --matrix takes); exit 2 when there is none. */
export async function printMatrixCommand(request: { words: readonly string[]; step?: string; pairs?: boolean }, streams: RunStreams): Promise<number> {
  try {
    const target = await resolveRunTarget(request.words, process.cwd());
    if (target.arguments.length > 0) throw new HostError('usage', `unexpected argument ${JSON.stringify(target.arguments[0])}: rho matrix takes a FILE and a TASK`);
    const { workflow } = await loadWorkflowFile(target.file, builtinRegistry(), 'skip', { task: target.task, parseCache: workflowParseCache(process.env) });
    if (request.pairs) for (const pair of matrixPairs(workflow, request.step)) streams.stdout.write(`${pair}\n`);
    else streams.stdout.write(`${JSON.stringify(matrixForCi(workflow, request.step))}\n`);
    return exitCodes.success;
  } catch (error) {
    return reportStartupError(error, (line) => streams.stderr.write(`${line}\n`));
  }
}
