import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, type Dirent, type Stats } from 'node:fs';
import { lstat, mkdir, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../host/errors.js';
import type { FileIdentity } from '../../host/workspace.js';

const directoryFlags = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * Linux names an open descriptor's directory `/proc/PID/fd/N/`: a path through it is resolved
 * from that directory, whatever its name on disk now leads to. Elsewhere the final I/O falls back
 * to path strings checked just before use (a window a hostile local process can still race).
 */
const descriptorRoot = process.platform === 'linux' && existsSync('/proc/self/fd') ? ownDescriptorDirectory() : undefined;

/**
 * `/proc/self` is a symlink the kernel resolves again on every lookup (a walk makes two or three
 * per file), so this process's own `/proc/PID` is used instead when `/proc/self` names it; a
 * /proc mounted from another PID namespace would not, and then `/proc/self` stays.
 */
function ownDescriptorDirectory(): string {
  try {
    if (readlinkSync('/proc/self') === String(process.pid)) return `/proc/${process.pid}/fd`;
  } catch {
    // An unreadable /proc/self link leaves the path the kernel resolves itself.
  }
  return '/proc/self/fd';
}

function refused(shown: string, what: string): ToolError {
  return new ToolError('path_refused', `${shown} refused: ${what}; nothing was read or written`, { details: { path: shown, reason: what } });
}

/** A name of one entry in a directory, never a path: no separator, no `.` or `..`. */
function validateEntryName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes(path.sep) || name.includes('\0')) {
    throw new ToolError('internal', `not a single directory entry name: ${JSON.stringify(name)}`);
  }
}

/**
 * An open directory proved to be the canonical directory it was checked as. Every create,
 * write, rename, link and unlink of a file tool goes through `entry(name)`, so once the
 * directory is opened and verified, a symlink swapped into its path cannot redirect the I/O:
 * on Linux the kernel resolves the name relative to the open directory. The last component is
 * always opened with O_NOFOLLOW by the callers.
 */
export class CheckedDirectory {
  private closed = false;

  private constructor(
    /** A bare descriptor, opened and closed synchronously: a walk opens one per directory, and a thread-pool round trip costs more than the call. */
    private readonly fd: number,
    /** The canonical path it was opened and verified as. */
    readonly canonical: string,
  ) {}

  /**
   * Opens `canonical` (symlink-free, already authorized) without following a link in its last
   * component, then proves the descriptor is that directory: on Linux the kernel's own name for
   * it must be `canonical` (a symlink or a moved directory anywhere in the chain shows there),
   * and its device and inode must be `expected` when the caller knows them. `at` is where to
   * open it from (an entry of an already checked directory), `canonical` by default.
   */
  static async open(canonical: string, shown: string, expected?: FileIdentity, at: string = canonical): Promise<CheckedDirectory> {
    let fd: number;
    try {
      fd = openSync(at, directoryFlags);
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || code === 'ENOTDIR') throw refused(shown, 'its directory was replaced by a symlink or a file after it was checked');
      if (code === 'ENOENT') throw new ToolError('not_found', `${shown}: its directory no longer exists`, { cause, details: { path: shown } });
      throw new ToolError('execution_failed', `cannot open the directory of ${shown}: ${(cause as Error).message}`, { cause });
    }
    const directory = new CheckedDirectory(fd, canonical);
    try {
      await directory.verify(shown, expected);
      return directory;
    } catch (error) {
      await directory.close();
      throw error;
    }
  }

  /** The path that names `name` inside this directory for the final I/O. */
  entry(name: string): string {
    validateEntryName(name);
    // A closed descriptor's number may already name another open file.
    if (this.closed) throw new ToolError('internal', `directory ${this.canonical} used after it was closed`);
    return descriptorRoot ? `${descriptorRoot}/${this.fd}/${name}` : path.join(this.canonical, name);
  }

  /**
   * The entries of this directory with the type each had when listed (read through the open
   * descriptor on Linux): the kernel's listing gives the type, so naming an entry's kind costs
   * no call per entry. Where a file system does not report types, Node describes the entry
   * itself (an lstat of the name through the same descriptor path).
   */
  async list(): Promise<Dirent[]> {
    return descriptorRoot ? readdirSync(`${descriptorRoot}/${this.fd}`, { withFileTypes: true }) : readdir(this.canonical, { withFileTypes: true });
  }

  /**
   * lstat of the entry `name` of this directory, undefined when it cannot be described: a symlink is
   * described, never followed. Synchronous: a walk describes every entry, and a local lstat
   * costs less than a thread-pool round trip.
   */
  describe(name: string): Stats | undefined {
    const entry = this.entry(name);
    try {
      return lstatSync(entry);
    } catch {
      return undefined;
    }
  }

  /** Creates the subdirectory `name` (failing with `conflict` if anything is there) and opens it, checked. */
  async createChild(name: string, shown: string): Promise<CheckedDirectory> {
    try {
      await mkdir(this.entry(name));
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new ToolError('conflict', `${shown}: directory ${path.join(this.canonical, name)} appeared while this call waited; nothing was written`, { cause });
      }
      throw cause;
    }
    return CheckedDirectory.open(path.join(this.canonical, name), shown, undefined, this.entry(name));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      closeSync(this.fd);
    } catch {
      // Closing a directory read only for its names cannot lose data.
    }
  }

  private async verify(shown: string, expected: FileIdentity | undefined): Promise<void> {
    const info: Stats = fstatSync(this.fd);
    if (!info.isDirectory()) throw refused(shown, 'its directory is not a directory any more');
    if (expected && (info.dev !== expected.dev || info.ino !== expected.ino)) throw refused(shown, 'its directory was replaced after it was checked');
    if (descriptorRoot) {
      // The kernel's name for the open directory: symlink-free, and where it really is now.
      if (readlinkSync(`${descriptorRoot}/${this.fd}`) !== this.canonical) throw refused(shown, 'its directory moved or a symlink appeared in its path');
      return;
    }
    const [real, named] = await Promise.all([realpath(this.canonical).catch(() => undefined), lstat(this.canonical).catch(() => undefined)]);
    if (real !== this.canonical || named?.dev !== info.dev || named?.ino !== info.ino) {
      throw refused(shown, 'its directory moved or a symlink appeared in its path');
    }
  }
}

/** Runs `use` with the checked directory `canonical`, closing it afterwards whatever happens. */
export async function withCheckedDirectory<T>(canonical: string, shown: string, expected: FileIdentity | undefined, use: (directory: CheckedDirectory) => Promise<T>): Promise<T> {
  const directory = await CheckedDirectory.open(canonical, shown, expected);
  try {
    return await use(directory);
  } finally {
    await directory.close();
  }
}
