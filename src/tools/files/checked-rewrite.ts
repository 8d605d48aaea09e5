import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../host/errors.js';
import type { ResolvedPath } from '../../host/workspace.js';
import { withCheckedDirectory } from './checked-directory.js';
import { openFileIn, readWhole, type OpenedFile } from './open-file.js';
import { stageFile } from './staged-file.js';

export interface Rewrite {
  before: Buffer;
  after: Buffer;
}

function conflict(shown: string, what: string): ToolError {
  return new ToolError('conflict', `${shown} changed while this call was rewriting it (${what}); nothing was written. Run the step again to work on the new content`, {
    details: { path: shown },
  });
}

/** Fails with `conflict` unless the open file still holds `before` and its path still names it. */
async function assertUnchanged(opened: OpenedFile, before: Buffer, atPathNow: string, shown: string): Promise<void> {
  const now = await opened.handle.stat();
  if (now.size !== before.length || now.mtimeMs !== opened.info.mtimeMs) throw conflict(shown, 'its size or modification time changed');
  const again = Buffer.alloc(before.length);
  const { bytesRead } = await opened.handle.read(again, 0, again.length, 0);
  if (bytesRead !== before.length || !again.equals(before)) throw conflict(shown, 'its content changed');
  const atPath = await lstat(atPathNow).catch(() => undefined);
  if (!atPath || atPath.dev !== now.dev || atPath.ino !== now.ino) throw conflict(shown, 'it was replaced or removed');
}

/**
 * Read-modify-write of an existing file, all of it through the file's checked parent directory.
 * The file is read through a handle checked to be the authorized file; the new content is
 * staged beside it; and only if the open file still holds exactly what was read is the staged
 * file renamed over it (keeping its permissions). A portable check like this narrows the window
 * for a lost update; it cannot close it.
 */
export function rewriteFile(resolved: ResolvedPath, shown: string, limit: number, transform: (before: Buffer) => Buffer | Promise<Buffer>): Promise<Rewrite> {
  const name = path.basename(resolved.canonical);
  return withCheckedDirectory(path.dirname(resolved.canonical), shown, undefined, async (directory) => {
    const opened = await openFileIn(directory, name, resolved.identity, shown);
    try {
      const before = await readWhole(opened, limit, shown);
      const after = await transform(before);
      const staged = await stageFile(directory, name, after, opened.info.mode & 0o7777);
      try {
        await assertUnchanged(opened, before, directory.entry(name), shown);
      } catch (error) {
        await staged.discard();
        throw error;
      }
      await staged.replace();
      return { before, after };
    } finally {
      await opened.handle.close();
    }
  });
}
