import type { z } from 'zod';
import { ToolError } from '../../host/errors.js';
import { formatMs } from '../../host/format-ms.js';
import type { ToolOutput } from '../../host/tool.js';
import type { ProcessOutcome } from './run-to-completion.js';
import type { resultData } from '../result-data.js';

/** The structured result of a process that ran to completion (a step's `data`), failed or not. */
export type CompletionData = z.infer<typeof resultData.exec>;

const stderrTailLines = 5;
const stderrTailChars = 2000;

/** The last few lines of stderr, for a failure message. */
function stderrTail(stderr: string): string {
  const lines = stderr.trimEnd().split('\n').slice(-stderrTailLines).join('\n');
  if (lines.length === 0) return '';
  const text = lines.length > stderrTailChars ? `…${lines.slice(-stderrTailChars)}` : lines;
  return `; last stderr lines:\n${text}`;
}

/** What the sandbox kept from a failed process, each with its grant (`confinementHints`), for the failure message. */
function sandboxNote(hints: readonly string[]): string {
  return hints.length === 0 ? '' : `; confinement: ${hints.join('; ')}`;
}

/**
 * Turns an outcome into the call's output: success when the exit code is one of `okExitCodes`,
 * otherwise a typed error whose details carry the same data a success would have had. `explain`
 * says, for a failure, what a sandbox kept from the process.
 */
export function completionOutput(
  label: string,
  outcome: ProcessOutcome,
  okExitCodes: readonly number[],
  wallLimitMs: number,
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
  switch (outcome.termination) {
    case 'timed_out':
      throw new ToolError('timeout', `${label} did not finish within ${formatMs(wallLimitMs)}; its process tree was stopped`, { details, output });
    case 'cancelled':
      throw new ToolError('cancelled', `${label} was cancelled; its process tree was stopped`, { details, output });
    case 'exited':
      break;
  }
  if (outcome.exitCode === null) {
    throw new ToolError('execution_failed', `${label} was killed by ${outcome.signal ?? 'a signal'}${stderrTail(outcome.stderr)}`, { details, output });
  }
  if (!okExitCodes.includes(outcome.exitCode)) {
    const expected = okExitCodes.length === 1 ? `${okExitCodes[0]}` : `one of ${okExitCodes.join(', ')}`;
    throw new ToolError('execution_failed', `${label} exited with code ${outcome.exitCode} (expected ${expected})${sandboxNote(explain(outcome))}${stderrTail(outcome.stderr)}`, {
      details,
      output,
    });
  }
  return { text: outcome.stdout, data, metadata: { truncated: outcome.truncated } };
}
