import type { CapabilityRequest } from './capability.js';
import type { ToolOrigin } from './tool.js';

/** What a person (or a flag) can answer to an approval request. */
export type ApprovalAnswer = 'allow_once' | 'allow_run' | 'deny';

export type { Decider } from './events.js';

/** What an approver is asked: frozen, the very value the policy decided on. */
export interface ApprovalRequest {
  /** Audit sequence number of this decision. */
  readonly seq: number;
  readonly callId: string;
  readonly stepId: string | undefined;
  readonly tool: string;
  /** The kind of tool that asks (see `AuthorizationSubject.source`). */
  readonly source: ToolOrigin;
  readonly request: CapabilityRequest;
  /** The `ask` rule that asked for approval, as written. */
  readonly askedBy: string | undefined;
  /** Whether `allow_run` would cover later identical requests; false for a tool whose approvals are never remembered (`allow_run` then counts once). */
  readonly rememberable: boolean;
}

/** Answers approval requests. The CLI passes an enquirer prompt; when in doubt an approver says no. */
export interface Approver {
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}
