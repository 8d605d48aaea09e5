import { ToolError } from '../../host/errors.js';
import { formatMs } from '../../host/format-ms.js';
import type { ToolOutput } from '../../host/tool.js';
import type { ProcessOutcome } from './run-to-completion.js';

/** The structured result of a process that ran to completion (a step's `data`). */
export interface CompletionData {
  exit_code: number | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timed_out: boolean;
}

const stderrTailLines = 5;
const stderrTailChars = 2000;

/** The last few lines of stderr, for a failure message. */
function stderrTail(stderr: string): string {
  const lines = stderr.trimEnd().split('\n').slice(-stderrTailLines).join('\n');
  if (lines.length === 0) return '';
  const text = lines.length > stderrTailChars ? `…${lines.slice(-stderrTailChars)}` : lines;
  return `; last stderr lines:\n${text}`;
}

/**
 * Turns an outcome into the call's output: success when the exit code is one of `okExitCodes`,
 * otherwise a typed error whose details carry the same data a success would have had.
 */
export function completionOutput(label: string, outcome: ProcessOutcome, okExitCodes: readonly number[], wallLimitMs: number): ToolOutput {
  const data: CompletionData = {
    exit_code: outcome.exitCode,
    stdout: outcome.stdout,
    stderr: outcome.stderr,
    truncated: outcome.truncated,
    timed_out: outcome.termination === 'timed_out',
  };
  const details = { ...data };
  switch (outcome.termination) {
    case 'timed_out':
      throw new ToolError('timeout', `${label} did not finish within ${formatMs(wallLimitMs)}; its process tree was stopped`, { details });
    case 'cancelled':
      throw new ToolError('cancelled', `${label} was cancelled; its process tree was stopped`, { details });
    case 'exited':
      break;
  }
  if (outcome.exitCode === null) {
    throw new ToolError('execution_failed', `${label} was killed by ${outcome.signal ?? 'a signal'}${stderrTail(outcome.stderr)}`, { details });
  }
  if (!okExitCodes.includes(outcome.exitCode)) {
    const expected = okExitCodes.length === 1 ? `${okExitCodes[0]}` : `one of ${okExitCodes.join(', ')}`;
    throw new ToolError('execution_failed', `${label} exited with code ${outcome.exitCode} (expected ${expected})${stderrTail(outcome.stderr)}`, {
      details,
    });
  }
  return { text: outcome.stdout, data, metadata: { truncated: outcome.truncated } };
}
