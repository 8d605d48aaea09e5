import type { NetworkRequest } from '../capability.js';
import type { ToolError } from '../errors.js';
import type { ConfinementPlan } from './plan.js';
import type { SandboxStatus } from './status.js';

/** What a sandbox starts: an absolute program, its argv and its whole environment. */
export interface SandboxCommand {
  file: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
}

/**
 * The channel between rho and the first process of a sandbox: the IPC channel of the child rho
 * spawned (a connected socket pair, inherited through the sandbox), which carries messages and
 * file descriptors (`handle`). A child process of Node's satisfies it.
 */
export interface SandboxChannel {
  send(message: unknown, callback: (error: Error | null) => void): boolean;
  on(event: 'message', listener: (message: unknown, handle: unknown) => void): unknown;
}

/**
 * One confined process's way to the run's network proxy, open until `close`. No path leads to
 * it: the sandbox runs a forwarder instead of the program (`command`), and once it is spawned
 * `attach` sends the forwarder the program to start and takes every connection the program opens,
 * handed over the sandbox's own channel, so each is decided for this process and no other.
 */
export interface ProxyConnection {
  /** A program the sandbox runs besides the target's (the forwarder's runtime): kept readable. */
  program: string;
  /** What the sandbox starts instead of the target: nothing of the target is on its argv or in its environment. */
  command(): SandboxCommand;
  /** Starts `target` behind the forwarder over the spawned sandbox's channel, and serves what it hands over. */
  attach(channel: SandboxChannel, target: SandboxCommand): void;
  /** The first connection the proxy refused this process: the denial the authorization path gave. */
  refusal(): ToolError | undefined;
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
  /**
   * The call waits for its process and reports how it ended (`exec`, `shell`): the directories of
   * its writable roots are guarded (`guardedDirectory`) and checked when it ends. A background
   * process outlives its call, so its roots are mounted on themselves.
   */
  guarded?: boolean;
  /** The running user's home, for messages that name paths in it as `~/…`. */
  home?: string;
  proxy?: ProxyEndpoint;
}
