import type { CapabilityRequest } from './capability.js';
import type { Delegation } from './hooks/delegation.js';
import type { PolicyDecision } from './policy.js';

export interface GateInput {
  callId: string;
  stepId: string | undefined;
  tool: string;
  /** The call's delegation identity (a call of a nested workflow group); the run's when absent. */
  delegation?: Delegation | undefined;
  request: CapabilityRequest;
  policyDecision: Exclude<PolicyDecision, 'deny'>;
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
