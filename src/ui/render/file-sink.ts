import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { HostError } from '../../host/errors.js';
import type { TextSink } from './renderer.js';

/** A report file opened before the run: text written to it reaches the file by `end()`. */
export type FileSink = TextSink & { end(): Promise<void> };

const reasons: Readonly<Record<string, string>> = {
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a parent of it is not a directory',
  EEXIST: 'a parent of it is a file, not a directory',
  EISDIR: 'it is a directory',
  ENOSPC: 'the disk is full',
  ENOENT: 'its directory does not exist',
};

/** Why a report file could not be written, in words and with the system's code. */
function reportError(what: string, file: string, error: unknown): HostError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code && reasons[code] ? `${reasons[code]} (${code})` : (error as Error).message;
  return new HostError('usage', `cannot write ${what} to ${file}: ${reason}`, { cause: error });
}

/**
 * Creates a directory and its missing parents one level at a time, so a failure carries the
 * system's own reason (a recursive mkdir on a read-only file system reports ENOENT).
 */
async function makeDirectories(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let current = dir; !existsSync(current) && path.dirname(current) !== current; current = path.dirname(current)) missing.unshift(current);
  for (const level of missing) await mkdir(level);
}

/**
 * Opens a report file at once (creating its directory), so a target that cannot be written is a
 * usage error before any step runs rather than a lost report after the summary. `append` keeps
 * what the file holds (`$GITHUB_STEP_SUMMARY`).
 */
export async function openFileSink(file: string, what: string, options: { append?: boolean } = {}): Promise<FileSink> {
  let stream: WriteStream;
  try {
    await makeDirectories(path.dirname(path.resolve(file)));
    stream = createWriteStream(file, { flags: options.append ? 'a' : 'w', mode: 0o644 });
    await Promise.race([once(stream, 'open'), once(stream, 'error').then(([error]) => Promise.reject(error as Error))]);
  } catch (error) {
    throw reportError(what, file, error);
  }
  let failure: unknown;
  stream.on('error', (error) => (failure ??= error));
  return {
    write: (text) => void stream.write(text),
    end: () =>
      new Promise<void>((resolve, reject) =>
        stream.end((error?: Error | null) => (error || failure ? reject(reportError(what, file, error ?? failure)) : resolve())),
      ),
  };
}
