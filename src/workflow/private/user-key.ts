import { closeSync, constants, fstatSync, linkSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { digestKeyBytes, newDigestKey, type DigestKey } from '../../host/keyed-digest.js';
import { ToolError } from '../../host/errors.js';

/** The key's file in rho's state directory. */
export const keyFileName = 'key';

const keyText = new RegExp(`^[0-9a-f]{${digestKeyBytes * 2}}\\n?$`);

/**
 * The user's key (`src/host/keyed-digest.ts`), kept in rho's state directory, which must exist:
 * read when it is there, made when it is not. A file anyone else may read, or that is not a
 * key, is replaced by a new key (what was sealed with the old one is then ignored, so every
 * step runs once). Two runs making it at once agree: the file is linked into place only if none
 * is there yet, and the loser reads the winner's.
 */
export function loadUserKey(stateDirectory: string): DigestKey {
  const file = path.join(stateDirectory, keyFileName);
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = readKey(file);
    if (existing) return existing;
    const key = newDigestKey();
    const partial = `${file}.${process.pid}.${attempt}.tmp`;
    try {
      writeFileSync(partial, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
      if (existing === null) rmSync(file, { force: true });
      linkSync(partial, file);
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(partial, { force: true });
    }
  }
  throw new ToolError('conflict', `cannot make rho's key at ${file}: another process keeps replacing it`);
}

/** The key in `file`; undefined when there is none, null when the file is there but is no key of this user's alone. */
function readKey(file: string): DigestKey | undefined | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') return null;
    throw error;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || (info.mode & 0o077) !== 0 || (process.getuid && info.uid !== process.getuid())) return null;
    const buffer = Buffer.alloc(digestKeyBytes * 2 + 2);
    const text = buffer.subarray(0, readSync(fd, buffer)).toString('latin1');
    return keyText.test(text) ? Buffer.from(text.trim(), 'hex') : null;
  } finally {
    closeSync(fd);
  }
}
