import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ProcessLaunch } from '../process/process-group.js';
import { sandboxLaunch } from '../process/sandbox/sandboxed-launch.js';
import { isGroupAlive, terminateGroup, terminationGraceMs, trackGroup, untrackGroup } from '../process/process-tree.js';
import { RetainedOutput } from '../process/retained-output.js';
import { ToolError } from '../../host/errors.js';
import type { ServerChannel } from './server-connection.js';
import type { SecretMasker } from '../../host/masking.js';
import { outputMask, type OutputMask } from '../process/masked-output.js';

/** Largest single JSON-RPC message a server may send; a larger one stops the server. */
export const maxMessageBytes = 16 * 1024 * 1024;
/** Newest bytes of the server's stderr kept for error messages. */
const stderrTailBytes = 4096;
/** How long a server gets to exit by itself once its stdin is closed, before its group is signalled. */
const closeGraceMs = 500;

export type ServerLaunch = Omit<ProcessLaunch, 'stdin'>;

/**
 * An MCP stdio transport over a server rho started itself: the exact program that was
 * authorized (an absolute path, no shell), the composed environment, and its own process group,
 * so stopping it stops whatever it started too. The SDK's own stdio transport resolves the
 * command itself and kills only the direct child, which is why rho does not use it.
 */
export class ServerProcess implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly buffer = new ReadBuffer({ maxBufferSize: maxMessageBytes });
  private readonly stderrTail = new RetainedOutput(stderrTailBytes);
  private exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  /** How its group is stopped: in a sandbox, the program inside gets the SIGTERM. */
  private terminate: (leader: number, graceMs: number) => Promise<void> = terminateGroup;

  /** The server's stderr masked as it arrives, so the kept tail never starts inside a secret. */
  private readonly stderrMask: OutputMask;

  constructor(
    private readonly launch: ServerLaunch,
    masker?: SecretMasker,
  ) {
    this.stderrMask = outputMask(masker);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the server ended, once it has; undefined while it runs. */
  get exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.exitStatus;
  }

  /**
   * Waits up to `withinMs` for the server to have exited (a broken pipe is often noticed before
   * the exit is), so a failure can say how the server ended.
   */
  async settle(withinMs: number): Promise<void> {
    if (this.exitStatus || !this.child) return;
    await Promise.race([this.exited, sleep(withinMs, undefined, { ref: false })]);
  }

  /** The last lines the server wrote to stderr, for a message about why it failed. */
  stderr(): string {
    return this.stderrTail.read(0, stderrTailBytes).content.trim();
  }

  /** Spawns the server; a second call (the client's connect, after `begin`) waits for the first. */
  start(): Promise<void> {
    this.starting ??= this.spawn();
    return this.starting;
  }

  private async spawn(): Promise<void> {
    const sandboxed = await sandboxLaunch(this.launch, this.launch.confinement);
    this.terminate = sandboxed.terminate;
    const child = spawn(sandboxed.file, [...sandboxed.args], {
      cwd: sandboxed.cwd,
      env: { ...sandboxed.env },
      stdio: ['pipe', 'pipe', 'pipe', ...sandboxed.extraStdio],
      detached: true,
      shell: false,
    }) as ChildProcessWithoutNullStreams;
    this.child = child;
    sandboxed.attach(child);
    this.exited = new Promise<void>((resolve) => {
      child.once('exit', (exitCode, exitSignal) => {
        const { exitCode: code, signal } = sandboxed.exitStatus(exitCode, exitSignal);
        void this.onExit(child, code, signal).then(resolve);
      });
      // A program that could not be started never exits: nothing is left to wait for.
      child.once('error', () => child.pid === undefined && resolve());
    });
    void this.exited.then(() => sandboxed.release());
    child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    child.stderr.on('data', (chunk: Buffer) => this.stderrTail.add(this.stderrMask.push(chunk)));
    child.stderr.on('end', () => this.stderrTail.add(this.stderrMask.end()));
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream.on('error', (error) => this.onerror?.(error));
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    trackGroup(child.pid!);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || this.exitStatus) throw new ToolError('execution_failed', 'the MCP server is not running');
    if (!stdin.write(serializeMessage(message))) await once(stdin, 'drain');
  }

  /**
   * Stops the server and everything in its process group: stdin closed, then SIGTERM, then
   * SIGKILL. `immediate` skips the wait after closing stdin: a server still starting when the
   * run no longer needs it has nothing to finish.
   */
  close(immediate = false): Promise<void> {
    this.stopping ??= this.stop(immediate);
    return this.stopping;
  }

  private async stop(immediate: boolean): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    child.stdin.end();
    if (!this.exitStatus && !immediate) await Promise.race([this.exited, sleep(closeGraceMs, undefined, { ref: false })]);
    if (isGroupAlive(child.pid)) await this.terminate(child.pid, terminationGraceMs);
    await this.exited;
  }

  private receive(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch (error) {
      // A message larger than the bound: the stream cannot be resynchronized, so the server goes.
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      try {
        const message = this.buffer.readMessage();
        if (!message) return;
        this.onmessage?.(message);
      } catch (error) {
        // A line that is not JSON-RPC (a stray log line) is reported and skipped.
        this.onerror?.(error as Error);
      }
    }
  }

  private async onExit(child: ChildProcessWithoutNullStreams, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    this.exitStatus = { code, signal };
    // The server is gone, but what it started may still hold its group: stop that too.
    if (child.pid !== undefined) {
      if (isGroupAlive(child.pid)) await terminateGroup(child.pid);
      else untrackGroup(child.pid);
    }
    this.buffer.clear();
    this.onclose?.();
  }
}

/** How long a failure waits to learn whether (and how) the server ended. */
const exitNoticeMs = 500;

/** A stdio channel to a server process rho starts itself; its stderr is masked with the run's secrets. */
export function stdioChannel(launch: ServerLaunch, masker?: SecretMasker): ServerChannel {
  const process = new ServerProcess(launch, masker);
  return {
    transport: process,
    begin: () => process.start(),
    get pid() {
      return process.pid;
    },
    close: (immediate) => process.close(immediate),
    // Why talking to the server failed, with how it exited and its last stderr lines when it is gone.
    async describe(cause) {
      await process.settle(exitNoticeMs);
      const parts = [cause instanceof Error ? cause.message : String(cause)];
      const exit = process.exit;
      if (exit) parts.push(exit.code === null ? `the server was killed by ${exit.signal ?? 'a signal'}` : `the server exited with code ${exit.code}`);
      const stderr = process.stderr();
      if (stderr) parts.push(`its stderr ends with:\n${stderr.split('\n').slice(-5).join('\n')}`);
      return parts.join('; ');
    },
  };
}
