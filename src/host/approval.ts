import type { CapabilityRequest } from './capability.js';

/** What a person (or a flag) can answer to an approval request. */
export type ApprovalAnswer = 'allow_once' | 'allow_run' | 'deny';

export type { Decider } from './events.js';

export interface ApprovalRequest {
  /** Audit sequence number of this decision. */
  seq: number;
  callId: string;
  stepId: string | undefined;
  tool: string;
  request: CapabilityRequest;
  /** The `ask` rule that asked for approval, as written. */
  askedBy: string | undefined;
}

/** Answers approval requests. The CLI passes an enquirer prompt; when in doubt an approver says no. */
export interface Approver {
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}
