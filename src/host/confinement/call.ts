import type { ConfinementPlan } from './plan.js';
import type { SandboxStatus } from './status.js';

/**
 * What a network proxy adds to a confined launch whose plan says `proxy`: arguments for the
 * sandbox (a socket bound in, say) and variables for the process (`HTTP_PROXY`, `HTTPS_PROXY`,
 * their lower-case forms). Without one, such a process has no network at all.
 */
export interface ProxyEndpoint {
  sandboxArguments: readonly string[];
  env: Readonly<Record<string, string>>;
}

/** Everything a process launcher needs to confine one call: the run's sandbox status and the call's plan. */
export interface CallConfinement {
  status: SandboxStatus;
  /** The policy's plan, narrowed by the step's `writes:` when it has one. */
  plan: ConfinementPlan;
  /** The step declared where it writes (`writes:`): those roots are all it declares for scheduling. */
  narrowed?: boolean;
  proxy?: ProxyEndpoint;
}
