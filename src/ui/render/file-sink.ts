import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { HostError } from '../../host/errors.js';
import type { TextSink } from './renderer.js';

/** A report file opened before the run: text written to it reaches the file by `end()`, which rejects if any of it could not be written. */
export type FileSink = TextSink & { end(): Promise<void> };

const reasons: Readonly<Record<string, string>> = {
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a parent of it is not a directory',
  EEXIST: 'a parent of it is a file, not a directory',
  EISDIR: 'it is a directory',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'the file grew too large',
  EIO: 'the device reported an I/O error',
  EPIPE: 'its reader went away',
  ENOENT: 'its directory does not exist',
};

/** Why a file could not be written, in words and with the system's code. */
export function writeFailureReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code && reasons[code] ? `${reasons[code]} (${code})` : (error as Error).message;
}

/** A target that cannot be opened before the run: nothing ran, so it is a usage error. */
function openError(what: string, file: string, error: unknown): HostError {
  return new HostError('usage', `cannot write ${what} to ${file}: ${writeFailureReason(error)}`, { cause: error });
}

/**
 * Creates a directory and its missing parents one level at a time, so a failure carries the
 * system's own reason (a recursive mkdir on a read-only file system reports ENOENT).
 */
export async function makeDirectories(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let current = dir; !existsSync(current) && path.dirname(current) !== current; current = path.dirname(current)) missing.unshift(current);
  for (const level of missing) await mkdir(level);
}

/** Text waits in memory up to this much before it is written; a write never waits for the disk. */
const bufferedChars = 64 * 1024;

/**
 * Opens a report file at once (creating its directory), so a target that cannot be written is a
 * usage error before any step runs rather than a lost report after the summary. `append` keeps
 * what the file holds (`$GITHUB_STEP_SUMMARY`).
 *
 * Writes are whole lines, buffered up to 64 KiB and written synchronously (soon after, or when
 * the buffer fills), so memory stays bounded however fast a run reports. The first write that
 * fails (a full disk) ends the file: what reached it is cut back to its last whole line, so the
 * lines already there stay whole, nothing more is written, and `end()` rejects with an
 * `output_failed` error that names the file and the reason.
 */
export async function openFileSink(file: string, what: string, options: { append?: boolean } = {}): Promise<FileSink> {
  let fd: number;
  try {
    await makeDirectories(path.dirname(path.resolve(file)));
    fd = openSync(file, options.append ? 'a' : 'w', 0o644);
  } catch (error) {
    throw openError(what, file, error);
  }
  return new SyncFileSink(fd, file, what);
}

class SyncFileSink implements FileSink {
  private pending = '';
  private scheduled: NodeJS.Immediate | undefined;
  private failure: HostError | undefined;
  private closed = false;
  /** Where the file ends after the last write that completed; undefined when it cannot be cut back (a device, a pipe). */
  private whole: number | undefined;

  constructor(
    private readonly fd: number,
    private readonly file: string,
    private readonly what: string,
  ) {
    const stat = fstatSync(fd);
    this.whole = stat.isFile() ? stat.size : undefined;
  }

  write(text: string): void {
    if (this.failure || this.closed) return;
    this.pending += text;
    if (this.pending.length >= bufferedChars) this.flush();
    else this.scheduled ??= setImmediate(() => this.flush());
  }

  async end(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    try {
      closeSync(this.fd);
    } catch (error) {
      this.fail(error);
    }
    if (this.failure) throw this.failure;
  }

  private flush(): void {
    clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.failure || this.pending === '') return;
    const bytes = Buffer.from(this.pending, 'utf8');
    this.pending = '';
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.fd, bytes, written);
      if (this.whole !== undefined) this.whole += bytes.length;
    } catch (error) {
      // Of what reached the file before the failure, the lines it ended are kept.
      if (this.whole !== undefined && written > 0) this.whole += bytes.lastIndexOf(0x0a, written - 1) + 1;
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure = new HostError(
      'output_failed',
      `could not write ${this.what} to ${this.file}: ${writeFailureReason(error)}; what was written before is complete, the rest is lost`,
      {
        cause: error,
      },
    );
    if (this.whole === undefined) return;
    try {
      ftruncateSync(this.fd, this.whole);
    } catch {
      // The file keeps the partial write; its earlier lines are still whole.
    }
  }
}
