import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const fileFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * The system calls a checked walk makes, from a bare Node loop with nothing else: each directory
 * opened, fstat-ed and named by the kernel (readlink), listed through its descriptor, and each
 * subdirectory described with an lstat through it; with `read`, each file also described, then
 * opened through the descriptor, fstat-ed, read and closed, and its bytes tested for `needle`.
 * What Node cannot do cheaper while resolving every name from an open directory (it has no
 * `openat`: `/proc/PID/fd/N/name` is the way). Returns the files holding `needle` (or entries seen).
 */
export function bareCheckedWalk(root: string, options: { read: boolean; needle: string }): number {
  const descriptors = `/proc/${process.pid}/fd`;
  const needle = Buffer.from(options.needle);
  let buffer = Buffer.allocUnsafe(64 * 1024);
  let found = 0;
  const visit = (directory: string) => {
    const fd = openSync(directory, directoryFlags);
    try {
      fstatSync(fd);
      readlinkSync(`${descriptors}/${fd}`);
      const base = `${descriptors}/${fd}/`;
      const entries = readdirSync(`${descriptors}/${fd}`, { withFileTypes: true }).sort((left, right) => (left.name < right.name ? -1 : 1));
      for (const entry of entries) {
        if (entry.isDirectory()) {
          lstatSync(base + entry.name);
          visit(`${directory}/${entry.name}`);
          continue;
        }
        found += options.read ? 0 : 1;
        if (!options.read || !entry.isFile()) continue;
        lstatSync(base + entry.name);
        const file = openSync(base + entry.name, fileFlags);
        try {
          const size = fstatSync(file).size;
          if (size > buffer.length) buffer = Buffer.allocUnsafe(size);
          const read = readSync(file, buffer, 0, size, 0);
          if (buffer.subarray(0, read).includes(needle)) found += 1;
        } finally {
          closeSync(file);
        }
      }
    } finally {
      closeSync(fd);
    }
  };
  visit(root);
  return found;
}
