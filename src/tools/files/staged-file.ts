import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, rename, unlink } from 'node:fs/promises';
import { ToolError } from '../../host/errors.js';
import type { CheckedDirectory } from './checked-directory.js';

const createFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
/** Keeps temp names under the usual 255-byte limit for a file name. */
const longestNamePart = 100;

/**
 * New content written to a temp file beside its target, not yet visible under the target's
 * name. Committing makes it visible in one step (rename or link), so readers see the old or
 * the new file, never a half-written one. The temp file is not fsynced: the promise is
 * atomicity for readers, not durability across a power cut.
 *
 * Every step names the temp file and the target through the one checked directory, so the
 * temp file is created, renamed and removed in that directory and nowhere else: a failed or
 * raced write leaves nothing behind (short of the process being killed mid-write).
 */
export interface StagedFile {
  /** Replaces the target (or creates it) atomically. */
  replace(): Promise<void>;
  /** Creates the target atomically, failing with `conflict` if something now exists there. */
  createNew(shown: string): Promise<void>;
  discard(): Promise<void>;
}

/** Writes `bytes` to a fresh temp file in `directory`, beside `name`; `mode` keeps an existing file's permissions. */
export async function stageFile(directory: CheckedDirectory, name: string, bytes: Uint8Array, mode: number | undefined): Promise<StagedFile> {
  const temp = directory.entry(`.${name.slice(0, longestNamePart)}.rho-${randomBytes(6).toString('hex')}.tmp`);
  const target = directory.entry(name);
  const handle = await open(temp, createFlags, mode ?? 0o666);
  const discard = () => unlink(temp).catch(() => undefined);
  try {
    await handle.writeFile(bytes);
    // The umask may have cleared bits the original file had.
    if (mode !== undefined) await handle.chmod(mode);
  } catch (error) {
    await handle.close();
    await discard();
    throw error;
  }
  await handle.close();
  return {
    async replace() {
      await rename(temp, target).catch(async (error: unknown) => {
        await discard();
        throw error;
      });
    },
    async createNew(shown) {
      try {
        await link(temp, target);
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new ToolError('conflict', `${shown} was created by someone else while this call waited; nothing was written`, { cause });
        }
        throw cause;
      } finally {
        await discard();
      }
    },
    discard,
  };
}
