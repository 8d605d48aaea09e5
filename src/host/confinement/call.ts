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
 * A network namespace of the run's own with nothing but loopback, started once by the launch's
 * backend, which the run's sandboxes behind the proxy join instead of making one each. Its first
 * process is the proxy's forwarder, on `channel`, which hands over the connections it accepts.
 */
export interface SharedNetwork {
  readonly channel: SandboxChannel;
  /** Settles once the namespace's first process is gone: no sandbox joins it after that. */
  readonly ended: Promise<void>;
  /** The command that runs `file` with `args` inside this namespace (for the backend that started it). */
  enter(file: string, args: readonly string[]): { file: string; args: readonly string[] };
  close(): void;
}

/**
 * Starts a `SharedNetwork` whose first process runs `forwarder`. `serve` takes the forwarder's
 * channel as soon as it is spawned and settles once the forwarder is ready there (so its
 * namespace is set up), rejecting when it never is. Rejects where sandboxes cannot join one.
 */
export type ShareNetwork = (forwarder: SandboxCommand, serve: (channel: SandboxChannel) => Promise<void>) => Promise<SharedNetwork>;

/** How a sandbox reaches the run's proxy. */
export type ProxyRoute =
  /** It joins the run's shared network namespace, where the forwarder listens, and its program gets `variables`. */
  | { kind: 'shared'; network: SharedNetwork; variables: Readonly<Record<string, string>> }
  /**
   * It has a namespace of its own and runs a forwarder of its own in front of the program
   * (`command`); once it is spawned, `attach` sends the forwarder the program to start and takes
   * every connection the program opens, handed over the sandbox's own channel.
   */
  | {
      kind: 'forwarder';
      /** A program the sandbox runs besides the target's (the forwarder's runtime): kept readable. */
      program: string;
      /** What the sandbox starts instead of the target: nothing of the target is on its argv or in its environment. */
      command(): SandboxCommand;
      attach(channel: SandboxChannel, target: SandboxCommand): void;
    };

/**
 * One confined process's way to the run's network proxy, open until `close`. No path leads to
 * it: every request the process sends presents a token of its own (in its proxy variables),
 * dead once the process is gone, so each is decided for this process and no other.
 */
export interface ProxyConnection {
  readonly route: ProxyRoute;
  /** The first connection the proxy refused this process: the denial the authorization path gave. */
  refusal(): ToolError | undefined;
  close(): void;
}

/**
 * A call's access to the run's filtering proxy, for a plan that says `proxy`. Nothing is opened
 * until a process starts (`open`, once for each process; `share` is how the launch's backend
 * shares a network namespace, where it can). Without one, such a process has no network at all.
 */
export interface ProxyEndpoint {
  open(share?: ShareNetwork): Promise<ProxyConnection>;
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
