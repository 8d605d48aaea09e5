import { once } from 'node:events';
import type { Readable } from 'node:stream';
import type { CallConfinement } from '../../host/confinement/index.js';
import { ToolError } from '../../host/errors.js';
import { sandboxLaunch, type SandboxedLaunch } from './sandbox/sandboxed-launch.js';
import type { UndoneWrite } from './sandbox/undone-writes.js';
import { isGroupAlive, terminationGraceMs, trackGroup, untrackGroup } from './process-tree.js';

/** Everything needed to start one child: no shell, an absolute program, an explicit environment. */
export interface ProcessLaunch {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** Text written to stdin; stdin is closed when absent. */
  stdin: string | undefined;
  /** The sandbox the process runs in; unconfined when absent or when the run does not confine. */
  confinement?: CallConfinement | undefined;
  /** Ends a wait before the start (a sandbox waiting for a directory another one guards). */
  signal?: AbortSignal;
}

export interface ExitStatus {
  /** null when a signal ended the process. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * How long to keep reading a pipe after the whole group is gone: a process that escaped the
 * group (a daemon that called setsid) may hold it open forever, and must not hang the call.
 */
const pipeDrainMs = 500;

const isDrained = (stream: Readable) => stream.destroyed || stream.readableEnded;

async function drained(stream: Readable): Promise<void> {
  if (isDrained(stream)) return;
  await once(stream, 'close').catch(() => undefined);
}

let execaLoading: Promise<typeof import('execa')> | undefined;
/** execa once it has loaded: later processes start without waiting on the load's promise. */
let execaLoaded: typeof import('execa') | undefined;

/**
 * Loads execa once, on first use rather than with every run (it costs about one Node start).
 * Preparing a process call starts the load, so it overlaps authorization and scheduling.
 */
export function loadExeca(): Promise<typeof import('execa')> {
  return (execaLoading ??= import('execa').then((loaded) => (execaLoaded = loaded)));
}

/** Starts loading execa if nothing has yet; a failed load surfaces when a process is spawned. */
export function preloadExeca(): void {
  if (!execaLoading) loadExeca().catch(() => undefined);
}

/**
 * What execa is told for one child: no shell, exactly this environment, its own process group,
 * stdin closed unless text is given, and raw unbuffered pipes (output is bounded, masked and
 * split into lines here). execa's other per-call work is off already: its exit hook (`cleanup`)
 * is skipped for a detached child, its kill timer (`forceKillAfterDelay`) only follows its own
 * `kill()`, which rho never calls (it signals the group), and verbose, ipc, `all` and `lines`
 * are off by default. A sandboxed child gets the descriptors its sandbox reads (`extraStdio`:
 * what its backend reads, the proxy's IPC channel) after the three standard ones. Exported so the
 * benchmark measures exactly this.
 */
export function execaOptions(target: { cwd: string; env: Readonly<Record<string, string>>; extraStdio?: readonly ('pipe' | 'ipc')[] }, stdin: string | undefined) {
  const common = {
    cwd: target.cwd,
    env: target.env,
    extendEnv: false,
    buffer: false,
    // Raw chunks: no decoding or line handling inside execa.
    encoding: 'buffer' as const,
    detached: true,
    reject: false,
  };
  const input = stdin === undefined ? {} : { input: stdin };
  const extra = target.extraStdio ?? [];
  if (extra.length === 0) return { ...common, ...(stdin === undefined ? { stdin: 'ignore' as const } : input) };
  const stdio = [stdin === undefined ? ('ignore' as const) : ('pipe' as const), 'pipe', 'pipe', ...extra] as const;
  return { ...common, ...input, stdio, serialization: 'json' as const };
}

/**
 * A started child that leads its own process group. The group is what gets stopped, so
 * grandchildren go with it. `finished` settles when the child has exited, anything it left in
 * its group has been stopped, and both pipes are drained.
 */
export class ProcessGroup {
  readonly finished: Promise<ExitStatus>;
  private stopping: Promise<void> | undefined;
  private exitStatus: ExitStatus | undefined;
  private undone: readonly UndoneWrite[] = [];

  private constructor(
    readonly pid: number,
    readonly stdout: Readable,
    readonly stderr: Readable,
    exited: Promise<ExitStatus>,
    private readonly sandbox: Pick<SandboxedLaunch, 'terminate' | 'release' | 'networkRefusal'>,
  ) {
    this.finished = this.settle(exited).finally(() => {
      this.undone = sandbox.release();
    });
  }

  /** The first connection rho's network proxy refused the process, if any: a failure after one is that denial. */
  networkRefusal(): ToolError | undefined {
    return this.sandbox.networkRefusal();
  }

  /**
   * Starts the child in its own group (stdin closed unless text is given). Attach the output
   * listeners before yielding to the event loop: execa lets unread pipes flow on the next turn.
   */
  static async spawn(launch: ProcessLaunch): Promise<ProcessGroup> {
    const { execa } = execaLoaded ?? (await loadExeca());
    const sandboxed = await sandboxLaunch(launch, launch.confinement, launch.signal);
    const subprocess = execa(sandboxed.file, [...sandboxed.args], execaOptions(sandboxed, launch.stdin));
    const { pid, stdout, stderr } = subprocess;
    if (pid === undefined || !stdout || !stderr) {
      const result = await subprocess;
      sandboxed.release();
      throw new ToolError('execution_failed', `could not start ${launch.file}: ${result.originalMessage || result.shortMessage}`, {
        cause: result.cause,
      });
    }
    sandboxed.attach(subprocess);
    trackGroup(pid);
    const exited = new Promise<ExitStatus>((resolve) => {
      subprocess.once('exit', (exitCode, signal) => resolve(sandboxed.exitStatus(exitCode, signal)));
    });
    return new ProcessGroup(pid, stdout, stderr, exited, sandboxed);
  }

  /** The exit status once the child has exited; undefined while it runs. */
  get status(): ExitStatus | undefined {
    return this.exitStatus;
  }

  /** Once `finished` has settled: what the process did outside its write rules, which the sandbox undid. */
  get undoneWrites(): readonly UndoneWrite[] {
    return this.undone;
  }

  /** Stops the whole group (SIGTERM, then SIGKILL after the grace period). Safe to call more than once. */
  stop(graceMs: number = terminationGraceMs): Promise<void> {
    this.stopping ??= this.sandbox.terminate(this.pid, graceMs);
    return this.stopping;
  }

  private async settle(exited: Promise<ExitStatus>): Promise<ExitStatus> {
    const status = await exited;
    this.exitStatus = status;
    if (isGroupAlive(this.pid)) await this.stop();
    else untrackGroup(this.pid);
    // A stop under way (a sandbox's) ends only once everything it stops is gone.
    if (this.stopping !== undefined) await this.stopping;
    // Usually both pipes have closed with the child by now: no timer to arm and clear.
    if (isDrained(this.stdout) && isDrained(this.stderr)) return status;
    let drainTimer: NodeJS.Timeout | undefined;
    const drainLimit = new Promise<boolean>((resolve) => {
      drainTimer = setTimeout(() => resolve(true), pipeDrainMs).unref();
    });
    const pipes = Promise.all([drained(this.stdout), drained(this.stderr)]);
    const timedOut = await Promise.race([pipes.then(() => false), drainLimit]);
    clearTimeout(drainTimer);
    if (timedOut) {
      this.stdout.destroy();
      this.stderr.destroy();
    }
    return status;
  }
}
