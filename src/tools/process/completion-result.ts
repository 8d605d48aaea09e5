import type { z } from 'zod';
import { ToolError } from '../../host/errors.js';
import { formatMs } from '../../host/format-ms.js';
import type { ToolOutput } from '../../host/tool.js';
import type { ProcessOutcome } from './run-to-completion.js';
import { undoneWritesDenial } from './write-denial.js';
import type { completionData } from './completion-data.js';

/** The structured result of a process that ran to completion (a step's `data`), failed or not. */
export type CompletionData = z.infer<ReturnType<typeof completionData>>;

/** What the sandbox kept from a failed process, each with its grant (`confinementHints`), for the failure message. */
function sandboxNote(hints: readonly string[]): string {
  return hints.length === 0 ? '' : `; confinement: ${hints.join('; ')}`;
}

/**
 * Turns an outcome into the call's output: success when the exit code is one of `okExitCodes`,
 * otherwise a typed error whose details carry the same data a success would have had. A process
 * that failed after rho's network proxy refused it a host fails with that denial (exit 3), not
 * as the program's own failure; one that succeeded anyway (it did without the host) succeeds.
 * A failure's message says how the process ended and quotes none of its output (that was shown
 * as it came, and is whole in the step's log), only the paths `explain` finds the sandbox kept
 * from the process, each with the grant that allows it. A process that wrote outside its write
 * rules is denied, however it ended.
 */
export function completionOutput(
  label: string,
  outcome: ProcessOutcome,
  okExitCodes: readonly number[],
  wallLimitMs: number,
  workspaceRoot: string,
  explain: (outcome: ProcessOutcome) => readonly string[] = () => [],
): ToolOutput {
  const data: CompletionData = {
    exit_code: outcome.exitCode,
    stdout: outcome.stdout,
    stderr: outcome.stderr,
    truncated: outcome.truncated,
    timed_out: outcome.termination === 'timed_out',
  };
  const details = { ...data };
  const output = { text: outcome.stdout, data };
  if (outcome.undoneWrites.length > 0) throw undoneWritesDenial(label, outcome.undoneWrites, workspaceRoot, details, output);
  switch (outcome.termination) {
    case 'timed_out':
      throw new ToolError('timeout', `${label} did not finish within ${formatMs(wallLimitMs)}; its process tree was stopped`, { details, output });
    case 'cancelled':
      throw new ToolError('cancelled', `${label} was cancelled; its process tree was stopped`, { details, output });
    case 'exited':
      break;
  }
  const ended = outcome.exitCode === null ? `was killed by ${outcome.signal ?? 'a signal'}` : `exited with code ${outcome.exitCode}`;
  if (outcome.exitCode !== null && okExitCodes.includes(outcome.exitCode)) return { text: outcome.stdout, data, metadata: { truncated: outcome.truncated } };
  const refusal = outcome.networkRefusal;
  if (refusal) {
    // The program most likely failed because of it: the step is denied, naming the host and what grants it.
    throw new ToolError(refusal.kind, `${label} ${ended} after rho's network proxy refused it a connection: ${refusal.message}`, {
      cause: refusal,
      details: { ...details, ...refusal.details },
      output,
    });
  }
  if (outcome.exitCode === null) throw new ToolError('execution_failed', `${label} ${ended}`, { details, output });
  const expected = okExitCodes.length === 1 ? `${okExitCodes[0]}` : `one of ${okExitCodes.join(', ')}`;
  throw new ToolError('execution_failed', `${label} ${ended} (expected ${expected})${sandboxNote(explain(outcome))}`, { details, output });
}
