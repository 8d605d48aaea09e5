import { createHash, randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, openSync, writeSync, writevSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { OutputLog, OutputLogs, OutputStream } from '../../host/step-output.js';
import { HostError } from '../../host/errors.js';
import { makeDirectories, writeFailureReason } from '../render/file-sink.js';

/**
 * A run's log directory: one file per step (per attempt of a retried step) holding everything it
 * printed, as it arrived — `STEP.log` — and, once a step has printed on both stdout and stderr,
 * each stream apart in `STEP.stdout.log` and `STEP.stderr.log`. rho writes them itself, outside
 * the workflow's policy: no step is asked for them, and nothing but the step's own bytes (masked)
 * is in them, so no line in a log is rho's to be forged. Writes are synchronous and unbuffered
 * beyond one partial line per stream, so a step printing gigabytes costs no memory here.
 */
export class StepLogFiles implements OutputLogs {
  private failure: string | undefined;
  private readonly names = new Set<string>();

  private constructor(
    readonly dir: string,
    private readonly onFailure: (message: string) => void,
  ) {}

  /**
   * Creates the run's directory under `base` (`base/2026-12-01T162735Z-1a2b3c4d`), private to
   * the user. When `keepRuns` is given, the oldest run directories beyond that many are removed.
   */
  static async create(base: string, options: { keepRuns?: number; onFailure(message: string): void }): Promise<StepLogFiles> {
    const stamp = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    const dir = path.join(path.resolve(base), `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6)}-${randomBytes(4).toString('hex')}`);
    try {
      await makeDirectories(path.dirname(dir));
      await makeDirectories(dir);
    } catch (error) {
      throw new HostError('usage', `cannot write the step logs to ${base}: ${writeFailureReason(error)}; choose another place with --logs DIR, or turn them off with --no-logs`, {
        cause: error,
      });
    }
    if (options.keepRuns !== undefined) await removeOldRuns(path.dirname(dir), options.keepRuns);
    return new StepLogFiles(dir, options.onFailure);
  }

  open(subject: { stepId: string; attempt: number }): OutputLog | undefined {
    if (this.failure) return undefined;
    const name = this.uniqueName(`${fileNameOf(subject.stepId)}${subject.attempt > 1 ? `.attempt-${subject.attempt}` : ''}`);
    try {
      return new StepLogFile(this.dir, name, (error) => this.fail(error));
    } catch (error) {
      this.fail(error);
      return undefined;
    }
  }

  private uniqueName(name: string): string {
    let unique = name;
    for (let n = 2; this.names.has(unique); n++) unique = `${name}.${n}`;
    this.names.add(unique);
    return unique;
  }

  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure = `rho: could not write the step logs in ${this.dir}: ${writeFailureReason(error)}; later output is not logged`;
    this.onFailure(this.failure);
  }
}

/** A line not yet ended is held this long at most before it goes into the combined log anyway. */
const longestHeldLine = 64 * 1024;

class StepLogFile implements OutputLog {
  readonly place: string;
  private readonly combined: number;
  private apart: Record<OutputStream, number> | undefined;
  private first: OutputStream | undefined;
  /** Each stream's bytes after its last line break, so the combined log interleaves whole lines. */
  private readonly held: Record<OutputStream, Buffer> = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
  /** After a failed write or once closed, nothing more is written (a closed descriptor's number may be another file's). */
  private failed = false;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly name: string,
    private readonly onFailure: (error: unknown) => void,
  ) {
    this.place = path.join(dir, `${name}.log`);
    this.combined = openSync(this.place, 'wx', 0o600);
  }

  write(stream: OutputStream, bytes: Buffer): void {
    if (this.failed || this.closed) return;
    try {
      this.first ??= stream;
      if (stream !== this.first && !this.apart) this.separate();
      if (this.apart) writeAll(this.apart[stream], [bytes]);
      this.writeLines(stream, bytes);
    } catch (error) {
      this.fail(error);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (!this.failed) writeAll(this.combined, [this.held.stdout, this.held.stderr]);
    } catch (error) {
      this.fail(error);
    }
    for (const fd of [this.combined, ...(this.apart ? [this.apart.stdout, this.apart.stderr] : [])]) {
      try {
        closeSync(fd);
      } catch {
        // Closing after a failed write has nothing left to report.
      }
    }
  }

  /** Whole lines go into the combined log as they come; the rest of a line waits for its end. */
  private writeLines(stream: OutputStream, bytes: Buffer): void {
    const end = Math.max(bytes.lastIndexOf(0x0a), bytes.lastIndexOf(0x0d)) + 1;
    const held = this.held[stream];
    if (end === 0 && held.length + bytes.length <= longestHeldLine) {
      this.held[stream] = Buffer.concat([held, bytes]);
      return;
    }
    const through = end === 0 ? bytes.length : end;
    writeAll(this.combined, [held, bytes.subarray(0, through)]);
    this.held[stream] = Buffer.from(bytes.subarray(through));
  }

  /**
   * The step printed on its second stream: until now the combined log held only the first, so it
   * becomes the first stream's own file (with the line it has not ended), and each stream is
   * written apart from here on.
   */
  private separate(): void {
    const first = this.first!;
    const second: OutputStream = first === 'stdout' ? 'stderr' : 'stdout';
    const file = (stream: OutputStream) => path.join(this.dir, `${this.name}.${stream}.log`);
    copyFileSync(this.place, file(first));
    this.apart = { [first]: openSync(file(first), 'a', 0o600), [second]: openSync(file(second), 'wx', 0o600) } as Record<OutputStream, number>;
    writeAll(this.apart[first], [this.held[first]]);
  }

  private fail(error: unknown): void {
    this.failed = true;
    this.onFailure(error);
  }
}

function writeAll(fd: number, parts: readonly Buffer[]): void {
  const pending = parts.filter((part) => part.length > 0);
  if (pending.length === 1) {
    for (let written = 0; written < pending[0]!.length; ) written += writeSync(fd, pending[0]!, written);
    return;
  }
  if (pending.length === 0) return;
  const total = pending.reduce((sum, part) => sum + part.length, 0);
  const written = writevSync(fd, pending);
  if (written < total) writeAll(fd, [Buffer.concat(pending).subarray(written)]);
}

/**
 * A step id as a file name: ids of plain steps are already safe (`a-z0-9_-`); a matrix cell's
 * (`test (node=20)`) or a `uses:` member's (`release/build`) is written with `_` for every other
 * character and a short digest of the id, so two ids never share a file and none names a path.
 */
export function fileNameOf(stepId: string): string {
  if (/^[a-z0-9][a-z0-9_-]{0,99}$/.test(stepId)) return stepId;
  const readable = stepId
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 80);
  return `${readable || 'step'}-${createHash('sha256').update(stepId).digest('hex').slice(0, 8)}`;
}

const runDirectory = /^\d{4}-\d{2}-\d{2}T\d{6}Z-[0-9a-f]{8}$/;
const workspacePlace = /-[0-9a-f]{12}$/;

/**
 * Removes the log places of workspaces no run has written to for `maxAgeMs` (a temporary
 * checkout's), so the logs of workspaces that are gone do not pile up. Only places named as rho
 * names them (`NAME-DIGEST`) are touched.
 */
export async function removeStaleLogPlaces(root: string, maxAgeMs: number, now = Date.now()): Promise<void> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory() || !workspacePlace.test(entry.name)) continue;
    const place = path.join(root, entry.name);
    const modified = await stat(place).then(
      (info) => info.mtimeMs,
      () => now,
    );
    if (now - modified > maxAgeMs) await rm(place, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Keeps the newest `keep` run directories of a place (their names sort by time); only directories rho named are touched. */
async function removeOldRuns(place: string, keep: number): Promise<void> {
  const entries = await readdir(place, { withFileTypes: true }).catch(() => []);
  const runs = entries
    .filter((entry) => entry.isDirectory() && runDirectory.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  for (const old of runs.slice(0, Math.max(0, runs.length - keep))) await rm(path.join(place, old), { recursive: true, force: true }).catch(() => undefined);
}
