import type { Readable } from 'node:stream';
import type { ToolError } from '../../host/errors.js';
import type { SecretMasker } from '../../host/masking.js';
import type { OutputStream } from '../../host/step-output.js';
import { outputMask } from './masked-output.js';
import { BoundedCapture } from './output-capture.js';
import { ProcessGroup, type ExitStatus, type ProcessLaunch } from './process-group.js';
import type { UndoneWrite } from './sandbox/undone-writes.js';

/** Why a process stopped: one discriminant instead of a handful of booleans. */
export type Termination = 'exited' | 'timed_out' | 'cancelled';

export interface ProcessOutcome extends ExitStatus {
  termination: Termination;
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** The first connection rho's network proxy refused the process, if any. */
  networkRefusal?: ToolError;
  /** What the process did outside its write rules, undone by the sandbox once it was gone. */
  undoneWrites: readonly UndoneWrite[];
}

export interface RunLimits {
  outputLimitBytes: number;
  wallLimitMs: number;
}

export interface RunObserver {
  /** Aborted on the host's deadline, a cancellation or an interrupt: the whole tree is stopped. */
  signal: AbortSignal;
  /** Everything the process prints, as it comes: the host masks it, logs it and shows its lines. */
  output(stream: OutputStream, chunk: Uint8Array): void;
  /** While the output's readers are behind, a promise that settles once they have room (`ExecuteContext.outputRoom`). */
  outputRoom?(): Promise<void> | undefined;
  /** The run's secrets, masked in the captured output before it is cut at its limit. */
  host?: { masker?: SecretMasker };
}

interface StreamCapture {
  capture: BoundedCapture;
  /** Takes in what masking still held back. */
  end(): void;
}

/** Captures one stream for the result, masked before it is cut at the output limit, and passes every chunk on as output. */
function captureStream(stream: Readable, name: OutputStream, limitBytes: number, observer: RunObserver): StreamCapture {
  const capture = new BoundedCapture(limitBytes);
  const mask = outputMask(observer.host?.masker);
  stream.on('data', (chunk: Buffer) => {
    if (!capture.full) capture.add(mask.push(chunk));
    else capture.skip(chunk.length);
    // What a stopped process prints (its cleanup trap) is output too: the host drops what comes after the call ends.
    observer.output(name, chunk);
    // The process waits on a full pipe meanwhile, as it would for any slow reader (once it exits,
    // Node reads what is left in the pipe anyway: at most a pipe's worth, which the host keeps).
    const room = stream.isPaused() ? undefined : observer.outputRoom?.();
    if (room !== undefined) {
      stream.pause();
      void room.then(() => stream.resume());
    }
  });
  return {
    capture,
    end: () => capture.add(mask.end()),
  };
}

/**
 * Runs one child to completion with bounded output, passing everything it prints on as the
 * call's output. On its wall limit or when the signal aborts, the child's whole process group is
 * stopped; the outcome says which of those ended it.
 */
export async function runToCompletion(launch: ProcessLaunch, limits: RunLimits, observer: RunObserver): Promise<ProcessOutcome> {
  const group = await ProcessGroup.spawn({ ...launch, signal: observer.signal });
  const stdout = captureStream(group.stdout, 'stdout', limits.outputLimitBytes, observer);
  const stderr = captureStream(group.stderr, 'stderr', limits.outputLimitBytes, observer);

  let termination: Termination = 'exited';
  const stopBecause = (reason: Exclude<Termination, 'exited'>) => {
    if (group.status) return;
    if (termination === 'exited') termination = reason;
    void group.stop();
  };
  const onAbort = () => stopBecause('cancelled');
  const timer = setTimeout(() => stopBecause('timed_out'), limits.wallLimitMs);
  observer.signal.addEventListener('abort', onAbort, { once: true });
  if (observer.signal.aborted) onAbort();

  try {
    const status = await group.finished;
    stdout.end();
    stderr.end();
    const networkRefusal = group.networkRefusal();
    return {
      ...status,
      termination,
      stdout: stdout.capture.text(),
      stderr: stderr.capture.text(),
      truncated: stdout.capture.truncated || stderr.capture.truncated,
      ...(networkRefusal && { networkRefusal }),
      undoneWrites: group.undoneWrites,
    };
  } finally {
    clearTimeout(timer);
    observer.signal.removeEventListener('abort', onAbort);
  }
}
