import type { Readable } from 'node:stream';
import type { ToolError } from '../../host/errors.js';
import type { SecretMasker } from '../../host/masking.js';
import type { ToolProgress } from '../../host/tool.js';
import { LineSplitter, ProgressThrottle } from './line-progress.js';
import { outputMask } from './masked-output.js';
import { BoundedCapture } from './output-capture.js';
import { ProcessGroup, type ExitStatus, type ProcessLaunch } from './process-group.js';

/** Why a process stopped: one discriminant instead of a handful of booleans. */
export type Termination = 'exited' | 'timed_out' | 'cancelled';

export interface ProcessOutcome extends ExitStatus {
  termination: Termination;
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** The first connection rho's network proxy refused the process, if any. */
  networkRefusal?: ToolError;
}

export interface RunLimits {
  outputLimitBytes: number;
  wallLimitMs: number;
}

export interface RunObserver {
  /** Aborted on the host's deadline, a cancellation or an interrupt: the whole tree is stopped. */
  signal: AbortSignal;
  progress(update: ToolProgress): void;
  /** The run's secrets, masked in the output before it is cut or kept. */
  host?: { masker?: SecretMasker };
}

interface StreamCapture {
  capture: BoundedCapture;
  lines: LineSplitter;
  /** Takes in what masking still held back and ends the lines. */
  end(): void;
}

/** Captures one stream, masked before it is cut into lines or at the output limit. */
function captureStream(stream: Readable, name: 'stdout' | 'stderr', limitBytes: number, throttle: ProgressThrottle, masker: SecretMasker | undefined): StreamCapture {
  const capture = new BoundedCapture(limitBytes);
  const lines = new LineSplitter(
    (message) => throttle.offer({ message, stream: name }),
    () => throttle.hasRoom(),
  );
  const mask = outputMask(masker);
  const take = (masked: Buffer) => {
    capture.add(masked);
    lines.push(masked);
  };
  stream.on('data', (chunk: Buffer) => take(mask.push(chunk)));
  return {
    capture,
    lines,
    end() {
      take(mask.end());
      lines.end();
    },
  };
}

/**
 * Runs one child to completion with bounded output, streaming its complete lines as throttled
 * progress. On its wall limit or when the signal aborts, the child's whole process group is
 * stopped; the outcome says which of those ended it.
 */
export async function runToCompletion(launch: ProcessLaunch, limits: RunLimits, observer: RunObserver): Promise<ProcessOutcome> {
  const group = await ProcessGroup.spawn(launch);
  const throttle = new ProgressThrottle((update) => {
    if (!observer.signal.aborted) observer.progress(update);
  });
  const stdout = captureStream(group.stdout, 'stdout', limits.outputLimitBytes, throttle, observer.host?.masker);
  const stderr = captureStream(group.stderr, 'stderr', limits.outputLimitBytes, throttle, observer.host?.masker);

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
    };
  } finally {
    clearTimeout(timer);
    observer.signal.removeEventListener('abort', onAbort);
    throttle.close();
  }
}
