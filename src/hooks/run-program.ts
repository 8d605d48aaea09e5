import type { Readable } from 'node:stream';
import type { CallConfinement } from '../host/confinement/index.js';
import { ProcessGroup } from '../tools/process/process-group.js';

/** One hook program, ready to run: its argv, where it runs, and the (already scrubbed) environment it gets. */
export interface HookProgram {
  command: readonly [string, ...string[]];
  cwd: string;
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** How the program is confined (read-only, no network, private TMPDIR); unconfined when absent. */
  confinement?: CallConfinement;
}

export type HookRun = { outcome: 'exited'; stdout: string; durationMs: number } | { outcome: 'failed'; reason: string; durationMs: number };

/** A gate answer is one small JSON object; more than this is a broken or hostile hook. */
export const maxHookStdoutBytes = 64 * 1024;
const stderrTailBytes = 2048;
/** A hook that is stopped gets this long after SIGTERM before SIGKILL: hooks must not hold a run up. */
const hookStopGraceMs = 100;

/**
 * Runs a hook program with the envelope on stdin (never in argv) in its own process group,
 * under its time limit and the caller's signal, and reports how it ended. Never throws.
 */
export async function runHookProgram(program: HookProgram, stdin: string, signal: AbortSignal): Promise<HookRun> {
  const startedAt = performance.now();
  const elapsed = () => performance.now() - startedAt;
  const [file, ...args] = program.command;
  let group: ProcessGroup;
  try {
    group = await ProcessGroup.spawn({ file, args, cwd: program.cwd, env: program.env, stdin, confinement: program.confinement });
  } catch (cause) {
    return { outcome: 'failed', reason: `could not start ${file}: ${(cause as Error).message}`, durationMs: elapsed() };
  }
  let stopReason: string | undefined;
  const stop = (reason: string) => {
    stopReason ??= reason;
    void group.stop(hookStopGraceMs);
  };
  const timer = setTimeout(() => stop(`did not finish within ${program.timeoutMs} ms`), program.timeoutMs);
  const onAbort = () => stop('was cancelled');
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  const stdout = collect(group.stdout, maxHookStdoutBytes, () => stop(`wrote more than ${maxHookStdoutBytes} bytes to stdout`));
  const stderr = collect(group.stderr, stderrTailBytes, () => undefined);
  try {
    const status = await group.finished;
    if (stopReason) return { outcome: 'failed', reason: stopReason, durationMs: elapsed() };
    if (status.signal) return { outcome: 'failed', reason: `was killed by ${status.signal}`, durationMs: elapsed() };
    if (status.exitCode !== 0) {
      const said = firstLine(stderr());
      return { outcome: 'failed', reason: `exited with code ${status.exitCode}${said ? ` (stderr: ${said})` : ''}`, durationMs: elapsed() };
    }
    return { outcome: 'exited', stdout: stdout(), durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

/** Keeps the first `limit` bytes of a stream and calls `overflow` once if there is more. */
function collect(stream: Readable, limit: number, overflow: () => void): () => string {
  const chunks: Buffer[] = [];
  let size = 0;
  let overflowed = false;
  stream.on('data', (chunk: Buffer) => {
    if (size < limit) chunks.push(chunk.subarray(0, limit - size));
    size += chunk.length;
    if (size > limit && !overflowed) {
      overflowed = true;
      overflow();
    }
  });
  return () => Buffer.concat(chunks).toString('utf8');
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
