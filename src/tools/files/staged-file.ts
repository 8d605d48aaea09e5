import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../host/errors.js';

const createFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
/** Keeps temp names under the usual 255-byte limit for a file name. */
const longestNamePart = 100;

/**
 * New content written to a temp file beside its target, not yet visible under the target's
 * name. Committing makes it visible in one step (rename or link), so readers see the old or
 * the new file, never a half-written one. The temp file is not fsynced: the promise is
 * atomicity for readers, not durability across a power cut.
 */
export interface StagedFile {
  /** Replaces the target (or creates it) atomically. */
  replace(): Promise<void>;
  /** Creates the target atomically, failing with `conflict` if something now exists there. */
  createNew(shown: string): Promise<void>;
  discard(): Promise<void>;
}

/** Writes `bytes` to a fresh temp file in the target's directory; `mode` keeps an existing file's permissions. */
export async function stageFile(target: string, bytes: Uint8Array, mode: number | undefined): Promise<StagedFile> {
  const name = path.basename(target).slice(0, longestNamePart);
  const temp = path.join(path.dirname(target), `.${name}.rho-${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, createFlags, mode ?? 0o666);
  try {
    await handle.writeFile(bytes);
    // The umask may have cleared bits the original file had.
    if (mode !== undefined) await handle.chmod(mode);
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  const discard = () => unlink(temp).catch(() => undefined);
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
