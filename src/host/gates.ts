import type { CapabilityRequest } from './capability.js';
import type { Delegation } from './hooks/delegation.js';
import type { PolicyDecision } from './policy.js';
import type { ToolOrigin } from './tool.js';

/** What a gate is asked: frozen, the very value the policy decided on. */
export interface GateInput {
  readonly callId: string;
  readonly stepId: string | undefined;
  readonly tool: string;
  /** The kind of tool that asks (see `AuthorizationSubject.source`). */
  readonly source: ToolOrigin;
  /** The call's delegation identity (a call of a nested workflow group); the run's when absent. */
  readonly delegation?: Delegation | undefined;
  readonly request: CapabilityRequest;
  readonly policyDecision: Exclude<PolicyDecision, 'deny'>;
}

export type GateAnswer = { decision: 'continue' } | { decision: 'deny'; reason: string };

/**
 * A pre-tool-use gate: consulted after the policy and before any approval wait. It can keep a
 * decision or make it stricter, never looser. Implementations must fail closed.
 */
export interface PreToolGate {
  readonly name: string;
  evaluate(input: GateInput, signal: AbortSignal): Promise<GateAnswer>;
}
