import { lstat } from 'node:fs/promises';
import { ToolError } from '../../host/errors.js';
import type { ResolvedPath } from '../../host/workspace.js';
import { openResolvedFile, readWhole, type OpenedFile } from './open-file.js';
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
async function assertUnchanged(opened: OpenedFile, before: Buffer, canonical: string, shown: string): Promise<void> {
  const now = await opened.handle.stat();
  if (now.size !== before.length || now.mtimeMs !== opened.info.mtimeMs) throw conflict(shown, 'its size or modification time changed');
  const again = Buffer.alloc(before.length);
  const { bytesRead } = await opened.handle.read(again, 0, again.length, 0);
  if (bytesRead !== before.length || !again.equals(before)) throw conflict(shown, 'its content changed');
  const atPath = await lstat(canonical).catch(() => undefined);
  if (!atPath || atPath.dev !== now.dev || atPath.ino !== now.ino) throw conflict(shown, 'it was replaced or removed');
}

/**
 * Read-modify-write of an existing file. The file is read through a handle checked to be the
 * authorized file; the new content is staged beside it; and only if the open file still holds
 * exactly what was read is the staged file renamed over it (keeping its permissions).
 * A portable check like this narrows the window for a lost update; it cannot close it.
 */
export async function rewriteFile(
  resolved: ResolvedPath,
  shown: string,
  limit: number,
  transform: (before: Buffer) => Buffer | Promise<Buffer>,
): Promise<Rewrite> {
  const opened = await openResolvedFile(resolved, shown);
  try {
    const before = await readWhole(opened, limit, shown);
    const after = await transform(before);
    const staged = await stageFile(resolved.canonical, after, opened.info.mode & 0o7777);
    try {
      await assertUnchanged(opened, before, resolved.canonical, shown);
    } catch (error) {
      await staged.discard();
      throw error;
    }
    await staged.replace();
    return { before, after };
  } finally {
    await opened.handle.close();
  }
}
