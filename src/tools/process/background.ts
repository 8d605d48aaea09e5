import { ToolError } from '../../host/errors.js';
import type { SecretMasker } from '../../host/masking.js';
import type { SessionKey, SessionState } from '../../host/session-state.js';
import { outputMask } from './masked-output.js';
import { ProcessGroup, type ExitStatus, type ProcessLaunch } from './process-group.js';
import { RetainedOutput } from './retained-output.js';
import type { UndoneWrite } from './sandbox/undone-writes.js';
import { describeUndoneWrites } from './write-denial.js';

/** `running`, or how it ended: by itself, by `process_stop` (or the run's end), or by its lifetime limit. */
export type BackgroundState = 'running' | 'exited' | 'stopped' | 'timed_out';
export type OutputStream = 'stdout' | 'stderr';

export interface BackgroundLimits {
  /** Newest bytes of each stream kept for `process_output`. */
  outputLimitBytes: number;
  /** Lifetime limit in ms; 0: the process lives until it is stopped or the run ends. */
  wallLimitMs: number;
}

/** One process started by `process_start`, with the newest output of each stream kept for reading. */
export class BackgroundProcess {
  readonly output: Readonly<Record<OutputStream, RetainedOutput>>;
  private ending: Exclude<BackgroundState, 'running' | 'exited'> | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly lifetime: NodeJS.Timeout | undefined;

  constructor(
    readonly id: string,
    /** What was started, for notices (`node server.mjs`). */
    readonly label: string,
    private readonly group: ProcessGroup,
    limits: BackgroundLimits,
    /** The run's secrets: masked before output is kept, so no slice read later can split one. */
    masker?: SecretMasker,
  ) {
    this.output = { stdout: new RetainedOutput(limits.outputLimitBytes), stderr: new RetainedOutput(limits.outputLimitBytes) };
    const masks = { stdout: outputMask(masker), stderr: outputMask(masker) };
    for (const stream of ['stdout', 'stderr'] as const) {
      group[stream].on('data', (chunk: Buffer) => {
        this.output[stream].add(masks[stream].push(chunk));
        this.notify();
      });
    }
    if (limits.wallLimitMs > 0) {
      this.lifetime = setTimeout(() => void this.stop('timed_out'), limits.wallLimitMs);
      this.lifetime.unref();
    }
    void group.finished.then(() => {
      for (const stream of ['stdout', 'stderr'] as const) this.output[stream].add(masks[stream].end());
      clearTimeout(this.lifetime);
      this.notify();
    });
  }

  get pid(): number {
    return this.group.pid;
  }

  get state(): BackgroundState {
    if (!this.group.status) return 'running';
    return this.ending ?? 'exited';
  }

  get exitStatus(): ExitStatus | undefined {
    return this.group.status;
  }

  /** Once it has ended: what it did outside its write rules, which the sandbox undid. */
  get undoneWrites(): readonly UndoneWrite[] {
    return this.group.undoneWrites;
  }

  /** Stops the whole process group; resolves when it is gone and its output is drained. */
  async stop(reason: 'stopped' | 'timed_out' = 'stopped'): Promise<void> {
    if (!this.group.status) this.ending ??= reason;
    await this.group.stop();
    await this.group.finished;
  }

  /**
   * Waits until `text` appears in a stream at or after `offset`, or the process ends, or the
   * signal aborts. Returns whether the text appeared.
   */
  async waitFor(stream: OutputStream, text: string, offset: number, signal: AbortSignal): Promise<boolean> {
    const found = () => this.output[stream].includes(text, offset);
    while (!found()) {
      if (this.state !== 'running' && this.group.status) {
        await this.group.finished;
        return found();
      }
      if (signal.aborted) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.listeners.delete(wake);
          signal.removeEventListener('abort', wake);
          resolve();
        };
        this.listeners.add(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
    return true;
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

const processIdPattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Validates a process id a workflow chose (`server`, `db-1`). */
export function validateProcessId(id: string): void {
  if (!processIdPattern.test(id)) {
    throw new ToolError('invalid_arguments', `process id ${JSON.stringify(id)}: use up to 64 lower case letters, digits, _ and -`);
  }
}

/**
 * The background processes of one run. They outlive the call that started them, and are
 * stopped (and reported) when the run ends.
 */
export class BackgroundProcesses {
  private readonly processes = new Map<string, BackgroundProcess>();
  private readonly reserved = new Set<string>();
  private counter = 0;

  /** A fresh id for a process about to be prepared, reserved so no other call is given it. */
  reserveId(): string {
    let id: string;
    do id = `proc-${++this.counter}`;
    while (this.processes.has(id) || this.reserved.has(id));
    this.reserved.add(id);
    return id;
  }

  async start(id: string, label: string, launch: ProcessLaunch, limits: BackgroundLimits, masker?: SecretMasker): Promise<BackgroundProcess> {
    if (this.processes.get(id)?.state === 'running') {
      throw new ToolError('conflict', `a background process named ${id} is already running; stop it first or choose another name`);
    }
    const group = await ProcessGroup.spawn(launch);
    const started = new BackgroundProcess(id, label, group, limits, masker);
    this.processes.set(id, started);
    this.reserved.delete(id);
    return started;
  }

  get(id: string): BackgroundProcess {
    const found = this.processes.get(id);
    if (found) return found;
    const known = [...this.processes.keys()];
    throw new ToolError('not_found', `no background process ${JSON.stringify(id)} was started in this run${known.length > 0 ? ` (known: ${known.join(', ')})` : ''}`);
  }

  /** Stops every process still running and returns one notice for each, and for each that wrote outside its write rules. */
  async stopAll(): Promise<string[]> {
    const running = [...this.processes.values()].filter((entry) => entry.state === 'running');
    await Promise.all(running.map((entry) => entry.stop()));
    const stopped = running.map((entry) => `background process ${entry.id} (${entry.label}) was still running when the run ended; it was stopped`);
    const wrote = [...this.processes.values()]
      .filter((entry) => entry.undoneWrites.length > 0)
      .map((entry) => `background process ${entry.id} (${entry.label}) wrote outside what its write rules grant: ${describeUndoneWrites(entry.undoneWrites)}`);
    return [...stopped, ...wrote];
  }
}

export const backgroundProcessesKey: SessionKey<BackgroundProcesses> = {
  name: 'background-processes',
  create(session: SessionState) {
    const processes = new BackgroundProcesses();
    session.onDispose(() => processes.stopAll());
    return processes;
  },
};

/** The run's background processes, from a call's context. */
export function backgroundProcesses(session: SessionState | undefined): BackgroundProcesses {
  if (!session) throw new ToolError('unsupported', 'background processes need a host that keeps run state (a ToolHost)');
  return session.use(backgroundProcessesKey);
}

/** The status facts every background-process result carries. */
export function processStatus(entry: BackgroundProcess): { process_id: string; state: BackgroundState; exit_code: number | null; signal: string | null } {
  return { process_id: entry.id, state: entry.state, exit_code: entry.exitStatus?.exitCode ?? null, signal: entry.exitStatus?.signal ?? null };
}
