import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../host/errors.js';
import type { FileIdentity, ResolvedPath } from '../../host/workspace.js';
import { withCheckedDirectory, type CheckedDirectory } from './checked-directory.js';

/**
 * Never follow a symlink in the last component (the path is already canonical), and never
 * block on a FIFO: a pipe swapped in for a file is opened, inspected and refused.
 */
const readFlags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export interface OpenedFile {
  handle: FileHandle;
  info: Stats;
}

function changedUnderneath(shown: string, what: string): ToolError {
  return new ToolError('path_refused', `${shown} refused: ${what}; nothing was read or written`, { details: { path: shown, reason: what } });
}

/**
 * Opens the regular file `name` of a checked directory for reading, without following a
 * symlink there, and proves the handle is the file that was checked: its device and inode
 * match `expected` when given.
 */
export async function openFileIn(directory: CheckedDirectory, name: string, expected: FileIdentity | undefined, shown: string): Promise<OpenedFile> {
  let handle: FileHandle;
  try {
    handle = await open(directory.entry(name), readFlags);
  } catch (cause) {
    throw openFailure(cause, shown);
  }
  try {
    const info = await handle.stat();
    checkOpened(info, expected, shown);
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function openFailure(cause: unknown, shown: string): ToolError {
  const code = (cause as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return changedUnderneath(shown, 'the file became a symlink after it was checked');
  if (code === 'ENOENT') return new ToolError('not_found', `${shown} no longer exists`, { cause, details: { path: shown } });
  return new ToolError('execution_failed', `cannot open ${shown}: ${(cause as Error).message}`, { cause });
}

/** Refuses an opened entry that is not a regular file, or not the one that was checked (`expected`). */
function checkOpened(info: Stats, expected: FileIdentity | undefined, shown: string): void {
  if (!info.isFile()) throw changedUnderneath(shown, 'it is not a regular file');
  if (expected && (info.dev !== expected.dev || info.ino !== expected.ino)) throw changedUnderneath(shown, 'it was replaced after it was checked');
}

/**
 * One buffer that many reads fill in turn, grown to the largest file read: a search reads
 * thousands of files and keeps none of their bytes, so a buffer each would only feed the
 * garbage collector. What a read returns is valid until the next read into the same scratch.
 */
export class ReadScratch {
  private buffer = Buffer.allocUnsafe(64 * 1024);

  constructor(private readonly limit: number) {}

  /** A buffer of at least `size` bytes (at most `limit` are ever asked for). */
  take(size: number): Buffer {
    if (size > this.buffer.length) this.buffer = Buffer.allocUnsafe(Math.max(size, Math.min(this.limit, this.buffer.length * 2)));
    return this.buffer;
  }
}

/**
 * Reads the whole regular file `name` of a checked directory with the checks of `openFileIn`,
 * through a bare descriptor and synchronous calls: for the small files a search reads by the
 * thousand, a thread-pool round trip per call (four per file) costs more than the call itself
 * (measured in bench/suites/trees.ts). Undefined when the file is over `limit` bytes. With a
 * `scratch`, the bytes are read into it (valid until its next use) instead of a buffer of their own.
 */
export function readFileIn(directory: CheckedDirectory, name: string, expected: FileIdentity | undefined, shown: string, limit: number, scratch?: ReadScratch): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(directory.entry(name), readFlags);
  } catch (cause) {
    throw openFailure(cause, shown);
  }
  try {
    const info = fstatSync(fd);
    checkOpened(info, expected, shown);
    if (info.size > limit) return undefined;
    const buffer = scratch ? scratch.take(info.size) : Buffer.allocUnsafe(info.size);
    let filled = 0;
    while (filled < info.size) {
      const bytesRead = readSync(fd, buffer, filled, info.size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens a canonical regular file for reading through its checked parent directory (so no
 * symlink swapped into the parent chain can redirect the open), proving it is `expected`.
 */
export function openCheckedFile(absolute: string, expected: FileIdentity | undefined, shown: string): Promise<OpenedFile> {
  return withCheckedDirectory(path.dirname(absolute), shown, undefined, (directory) => openFileIn(directory, path.basename(absolute), expected, shown));
}

/** Opens the file a ResolvedPath names (call `workspace.revalidate` first). */
export function openResolvedFile(resolved: ResolvedPath, shown: string): Promise<OpenedFile> {
  return openCheckedFile(resolved.canonical, resolved.identity, shown);
}

/** Reads a whole open file, refusing one larger than `limit` bytes. */
export async function readWhole(opened: OpenedFile, limit: number, shown: string): Promise<Buffer> {
  if (opened.info.size > limit) {
    throw new ToolError('unsupported', `${shown} is ${opened.info.size} bytes, over the ${limit}-byte limit for this operation`, {
      details: { path: shown },
    });
  }
  // Only the bytes read are returned, so the buffer need not be zeroed first.
  const buffer = Buffer.allocUnsafe(opened.info.size);
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await opened.handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Reads up to `length` bytes from the start of an open file. */
export async function readHead(opened: OpenedFile, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.min(length, opened.info.size));
  const { bytesRead } = await opened.handle.read(buffer, 0, buffer.length, 0);
  return buffer.subarray(0, bytesRead);
}
