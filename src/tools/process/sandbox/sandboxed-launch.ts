import { guardedDirectories, resolveConfinementPlan, type CallConfinement, type SandboxChannel, type ShareNetwork } from '../../../host/confinement/index.js';
import type { ToolError } from '../../../host/errors.js';
import { terminateGroup } from '../process-tree.js';
import type { ConfinementBackend, ProcessEnd } from './backend.js';
import { acquireGuards, announceRoots, type GuardLease } from './guard-locks.js';
import { backendNamed } from './probe.js';
import type { UndoneWrite } from './undone-writes.js';
import { prepareWriteChecks, type WriteChecks } from './write-checks.js';
import { prepareWritableTrees } from './writable-trees.js';

/** What starting one process takes: an absolute program, its argv, where, and the whole environment. */
export interface LaunchTarget {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
}

/** The child a launch was spawned as, as far as `attach` needs it: its descriptors from 3 on, and its IPC channel. */
export interface SpawnedSandbox extends SandboxChannel {
  readonly stdio: readonly unknown[];
}

/** A launch to spawn, how to stop it, and what to close once the process (and everything it started) is gone. */
export interface SandboxedLaunch extends LaunchTarget {
  /**
   * What the child gets after stdin, stdout and stderr, from descriptor 3 on: what the backend
   * reads, then the proxy's channel (Node's `ipc`) when the network is the proxy.
   */
  extraStdio: readonly ('pipe' | 'ipc')[];
  /** Gives the spawned child what it reads on those descriptors; call it right after the spawn. */
  attach(child: SpawnedSandbox): void;
  /** The first connection rho's proxy refused the process, if any: a failure after one is that denial. */
  networkRefusal(): ToolError | undefined;
  /**
   * Stops the process group the spawned child leads: SIGTERM, then SIGKILL after `graceMs`. In
   * the sandbox SIGTERM goes to the program and everything it started, so its traps run as they
   * would unconfined; only after the grace period is the sandbox torn down.
   */
  terminate(leader: number, graceMs: number): Promise<void>;
  /** How the process ended, as an unconfined one would say (the backend reads its own exit). */
  exitStatus(exitCode: number | null, signal: NodeJS.Signals | null): ProcessEnd;
  /**
   * Closes the process's way to the network proxy, if it has one, undoes what the process did
   * outside its write rules (and says what), and removes the granted trees created for it that
   * it left empty. Safe to call more than once: only the first call reports.
   */
  release(): readonly UndoneWrite[];
}

/** How `backend` shares a network namespace among a run's sandboxes, if it can; a program it needs must lie outside `untrusted` (where steps write). */
function networkSharing(backend: ConfinementBackend, location: string | undefined, untrusted: readonly string[]): ShareNetwork | undefined {
  const { shareNetwork } = backend;
  return shareNetwork && ((forwarder, serve) => shareNetwork({ forwarder, serve, location, untrusted }));
}

/**
 * Wraps a launch in the sandbox when the run confines processes: the backend the run's probe
 * chose (`SandboxStatus.backend`) turns it into the process to spawn, with TMPDIR pointing at the
 * private temp (an in-memory file system that ends with the process). A guarded launch first
 * waits until no other sandbox checks the directories it checks (`guard-locks.ts`); `signal`
 * ends that wait. The plan is then resolved on disk, and a
 * writable root that a link moved out of what the policy grants refuses the launch. A process
 * whose network is the proxy joins the run's shared network namespace where the backend can make
 * one (`networkSharing`), or else runs behind a forwarder of its own, which learns the program
 * and its environment over the sandbox's channel, so neither is on any argv; either way its way
 * to the proxy is closed by `release`.
 * Granted trees that do not exist are created for the mount, and removed by `release` if left
 * empty. Unconfined launches are returned as they are.
 */
export async function sandboxLaunch(target: LaunchTarget, confinement: CallConfinement | undefined, signal?: AbortSignal): Promise<SandboxedLaunch> {
  if (!confinement?.status.confined) {
    return {
      ...target,
      extraStdio: [],
      attach: () => {},
      networkRefusal: () => undefined,
      terminate: terminateGroup,
      exitStatus: (exitCode, signal) => ({ exitCode, signal }),
      release: () => [],
    };
  }
  const { plan, status } = confinement;
  const backend = backendNamed(status.backend);
  const roots = plan.writable.map((root) => root.path);
  announceRoots(roots);
  const directories = confinement.guarded ? guardedDirectories(plan) : [];
  const checked = directories.filter((directory) => !directory.open).map((directory) => directory.path);
  const leases = checked.length > 0 ? await acquireGuards(checked, roots, signal) : new Map<string, GuardLease>();
  const proxy = plan.network.mode === 'proxy' ? await confinement.proxy?.open(networkSharing(backend, status.location, plan.scope.places)) : undefined;
  const route = proxy?.route;
  const forwarder = route?.kind === 'forwarder' ? route : undefined;
  let trees: { release(): void } | undefined;
  let checks: WriteChecks | undefined;
  let released = false;
  const release = (): readonly UndoneWrite[] => {
    if (released) return [];
    released = true;
    proxy?.close();
    const undone = checks?.check() ?? [];
    for (const lease of leases.values()) lease.release();
    trees?.release();
    return undone;
  };
  try {
    // Resolved now, right before the start: an earlier step may have planted a link since the plan was made.
    const resolved = resolveConfinementPlan(plan, confinement.home);
    trees = prepareWritableTrees(
      resolved,
      directories.map((directory) => directory.path),
    );
    checks = prepareWriteChecks(resolved, directories, leases);
    const env = { ...target.env, ...(plan.privateTemp && { TMPDIR: plan.privateTemp }), ...(route?.kind === 'shared' && route.variables) };
    const program = { file: target.file, args: target.args, env };
    const launch = backend.launch({
      plan: resolved,
      command: forwarder ? forwarder.command() : program,
      cwd: target.cwd,
      programs: forwarder ? [target.file, forwarder.program] : [target.file],
      writeMounts: checks.mounts,
      location: status.location,
      ...(route?.kind === 'shared' && { network: route.network }),
    });
    return {
      file: launch.file,
      args: launch.args,
      cwd: target.cwd,
      env: launch.env,
      extraStdio: forwarder ? [...launch.extraStdio, 'ipc'] : launch.extraStdio,
      attach(child) {
        launch.attach(child);
        forwarder?.attach(child, program);
      },
      networkRefusal: () => proxy?.refusal(),
      terminate: (leader, graceMs) => launch.terminate(leader, graceMs),
      exitStatus: (exitCode, signal) => launch.exitStatus(exitCode, signal),
      release,
    };
  } catch (error) {
    release();
    throw error;
  }
}
