import type { Approver } from '../../host/approval.js';
import type { ScriptedDecision } from '../../host/authorization.js';
import { createPromptLock, type PromptTerminal } from '../questioner/index.js';
import { InteractiveApprover } from './interactive-approver.js';
import { formatScriptedDecision } from './scripted-echo.js';

export { approvalHeader, requestFacts } from './facts.js';
export { printable } from '../safe-text.js';
export { InteractiveApprover, type InteractiveApproverOptions } from './interactive-approver.js';
export { formatScriptedDecision } from './scripted-echo.js';

export interface ApprovalsOptions {
  /** Whether a person can be asked: a TTY on stdin, not CI, no --no-input (see `canPrompt`). */
  interactive: boolean;
  /**
   * Where prompts read and draw, shared with the questioner: the fancy renderer's
   * `promptTerminal` (a `ListrPromptHost`); stdin and stderr by default.
   */
  terminal?: PromptTerminal;
  /** Ctrl-C at an approval prompt: stop the run as SIGINT does (exit 130). */
  onInterrupt: () => void;
  /** Prints one line for a step; receives every decision `--approve`/`--yes` made. */
  echo: (stepId: string | undefined, line: string) => void;
  /** Hides secrets in what prompts show. */
  mask?: (text: string) => string;
}

export interface Approvals {
  /**
   * The approver for the ToolHost; undefined when nobody can answer, so the host denies an
   * unanswered request at once with the `--approve` rule that would answer it (stdin is never read).
   */
  approver: Approver | undefined;
  /** For `ScriptedApprovals.onDecision`: echoes each scripted decision. */
  onScriptedDecision: (decision: ScriptedDecision) => void;
}

/** The CLI's approval front end: an enquirer prompt on a terminal, nobody in CI, and the echo of flag decisions. */
export function createApprovals(options: ApprovalsOptions): Approvals {
  const approver = options.interactive
    ? new InteractiveApprover({
        terminal: options.terminal ?? { input: process.stdin, output: process.stderr, lock: createPromptLock() },
        onInterrupt: options.onInterrupt,
        ...(options.mask && { mask: options.mask }),
      })
    : undefined;
  return {
    approver,
    onScriptedDecision: (decision) => options.echo(decision.stepId, formatScriptedDecision(decision)),
  };
}
