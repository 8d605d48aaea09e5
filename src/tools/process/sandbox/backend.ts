import type { ResolvedPlan, SandboxChannel, SandboxCommand, SharedNetwork } from '../../../host/confinement/index.js';
import type { ProbeMemory } from './probe-memory.js';

/*
 * The launch half of confinement: how a plan (the policy half, `src/host/confinement`) is
 * enforced on one process. Everything that does not depend on the mechanism — guarded
 * directories, write checks, writable trees, the network proxy, undoing writes — is done around
 * a backend by `sandboxed-launch.ts`; a backend only turns what that prepared into a process to
 * spawn. Each backend lives in a folder of its own and is registered in `backends.ts`.
 */

/**
 * A path of the host shown at the same place inside the sandbox, over what was mounted before it:
 * a list of mounts is applied in its order, so a later one covers an earlier one.
 */
export interface PathMount {
  path: string;
  /** Writable inside the sandbox, or read-only. */
  writable: boolean;
  /** Skipped when the path does not exist at the start; without it, a missing path fails the launch. */
  ifPresent: boolean;
}

/** What a backend is asked when a run decides whether it confines. */
export interface BackendProbeRequest {
  /** The host environment: a backend reads its own settings there (`ConfinementBackend.settings`). */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** The home directories a run hides: a probe hides them too, as every confined process will. */
  homes: readonly string[];
  /** Where a working backend is remembered between runs (`probe-memory.ts`); none: always probe. */
  memory: ProbeMemory | undefined;
  /** How long the backend's program may take to answer before its answer counts as unknown (`BackendProbe.undecided`). */
  timeoutMs: number;
}

/**
 * A backend's answer: it works here (and where its program is), or why not and what would fix it.
 * `undecided`: it did not answer in time, so whether it confines is unknown, not refuted.
 */
export type BackendProbe = { works: true; location?: string } | { works: false; reason: string; fix?: string; undecided?: true };

/** One process to start confined, as the launch layer prepared it right before the start. */
export interface ConfinedStart {
  /** The plan, resolved on disk just now. */
  plan: ResolvedPlan;
  /** What the sandbox runs: the target program, or the network proxy's forwarder in its place. */
  command: SandboxCommand;
  cwd: string;
  /** Every program the sandbox starts (the target's, the forwarder's runtime): each stays readable with its installation. */
  programs: readonly string[];
  /** In this order, after the plan's own: writable roots, guarded directories' entries, protected places (`prepareWriteChecks`). */
  writeMounts: readonly PathMount[];
  /** Where the probe found the backend's program (`SandboxStatus.location`). */
  location: string | undefined;
  /** The run's shared network namespace (one this backend started) to join instead of making one: the plan's network is the proxy. */
  network?: SharedNetwork;
}

/** What a backend is asked when a run's sandboxes behind the proxy are to share one network namespace. */
export interface ShareNetworkRequest {
  /** What the namespace's first process runs: the proxy's forwarder. */
  forwarder: SandboxCommand;
  /** Takes the forwarder's channel right after the spawn; settles once the forwarder is ready (`ShareNetwork`). */
  serve(channel: SandboxChannel): Promise<void>;
  location: string | undefined;
  /** Where steps can write: a program the backend needs from there is not trusted. */
  untrusted: readonly string[];
}

/** How a process ended, as a launch reports it. */
export interface ProcessEnd {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** What a backend makes of a `ConfinedStart`: the process to spawn, and how to feed, stop and read it. */
export interface BackendLaunch {
  file: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  /** Descriptors the backend reads from 3 on; the network proxy's channel, when there is one, follows them. */
  extraStdio: readonly 'pipe'[];
  /** Gives the spawned child what the backend reads on those descriptors; called right after the spawn. */
  attach(child: { readonly stdio: readonly unknown[] }): void;
  /** Stops the process group the child leads: SIGTERM to what the sandbox runs, then SIGKILL after `graceMs`. */
  terminate(leader: number, graceMs: number): Promise<void>;
  /** How the process ended, as an unconfined one would say. */
  exitStatus(exitCode: number | null, signal: NodeJS.Signals | null): ProcessEnd;
}

/** One way to confine processes (a namespace sandbox, Landlock, Seatbelt…): probed once per run, then asked for each launch. */
export interface ConfinementBackend {
  /** The name events and messages give it (`SandboxStatus.backend`). */
  readonly name: string;
  /** The systems it can run on, as Node names them. */
  readonly platforms: readonly NodeJS.Platform[];
  /** The host variables its probe reads: two probes with the same values of these give the same answer. */
  readonly settings: readonly string[];
  /** What to do when the program it found lies where steps can write. */
  readonly relocationFix: string;
  /** Whether it confines here, started for real as a run's processes will be (or remembered from such a start). */
  probe(request: BackendProbeRequest): Promise<BackendProbe>;
  launch(start: ConfinedStart): BackendLaunch;
  /**
   * Starts a network namespace with nothing but loopback that this backend's sandboxes can join
   * (`ConfinedStart.network`), once its joining has been tried for real; rejects with why where
   * it cannot. A backend without it gives each sandbox behind the proxy a forwarder of its own.
   */
  shareNetwork?(request: ShareNetworkRequest): Promise<SharedNetwork>;
}
