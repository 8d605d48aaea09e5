import type { NetworkRequest } from '../capability.js';
import type { ConfinementPlan } from './plan.js';
import type { SandboxStatus } from './status.js';

/** What a sandbox starts: an absolute program, its argv and its whole environment. */
export interface SandboxCommand {
  file: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
}

/**
 * One confined process's way to the run's network proxy, open until `close`: what the sandbox
 * needs (a socket bound in) and the command it runs instead of the program (a forwarder that
 * reaches the proxy from inside the namespace, then the program with `HTTP_PROXY` and the like).
 */
export interface ProxyConnection {
  sandboxArguments: readonly string[];
  /** A program the sandbox runs besides the target's (the forwarder's runtime): kept readable. */
  program: string;
  command(target: SandboxCommand): SandboxCommand;
  close(): void;
}

/**
 * A call's access to the run's filtering proxy, for a plan that says `proxy`. Nothing is opened
 * until a process starts (`open`, once for each process). Without one, such a process has no
 * network at all.
 */
export interface ProxyEndpoint {
  open(): ProxyConnection;
}

/**
 * Decides one connection a confined process asks for: the host's authorization path for the
 * call that started it. `signal` aborts when that process is gone, ending a pending approval.
 */
export type AuthorizeConnection = (request: NetworkRequest, signal: AbortSignal) => Promise<void>;

/** The run's filtering proxy, as the host sees it: every connection a call's processes ask for is decided by `authorize`. */
export interface NetworkProxy {
  endpoint(authorize: AuthorizeConnection): ProxyEndpoint;
}

/** Everything a process launcher needs to confine one call: the run's sandbox status and the call's plan. */
export interface CallConfinement {
  status: SandboxStatus;
  /** The policy's plan, narrowed by the step's `writes:` when it has one. */
  plan: ConfinementPlan;
  /** The step declared where it writes (`writes:`): those roots are all it declares for scheduling. */
  narrowed?: boolean;
  /** The running user's home, for messages that name paths in it as `~/…`. */
  home?: string;
  proxy?: ProxyEndpoint;
}
