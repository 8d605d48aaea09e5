import type { ApprovalAnswer, ApprovalRequest, Approver } from '../../host/approval.js';
import { ToolError } from '../../host/errors.js';
import type { PromptTerminal } from '../questioner/index.js';
import { promptForApproval } from './approval-prompt.js';
import { approvalHeader } from './facts.js';

export interface InteractiveApproverOptions {
  /** Where prompts read keys and draw; share it (and its lock) with the questioner of the run. */
  terminal: PromptTerminal;
  /** Ctrl-C at the prompt: stop the run as SIGINT would (the CLI exits 130). */
  onInterrupt: () => void;
  /** Hides secrets in what the prompt shows. */
  mask?: (text: string) => string;
}

/**
 * Asks a person at a terminal: the step, the tool and the request's facts, then Allow once /
 * Allow for this run / Deny. One prompt at a time (the terminal's lock); a cancelled request
 * closes its prompt at once.
 */
export class InteractiveApprover implements Approver {
  constructor(private readonly options: InteractiveApproverOptions) {}

  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const { terminal, mask = (text: string) => text } = this.options;
    return terminal.lock.run(async () => {
      const ending = await promptForApproval(terminal, mask(approvalHeader(request)), signal, request.rememberable);
      if (ending !== 'interrupt') return ending;
      this.options.onInterrupt();
      throw new ToolError('interrupted', 'the run was interrupted at the approval prompt (Ctrl-C)');
    });
  }
}
