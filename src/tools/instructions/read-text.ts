import { displayPath } from '../../host/capability.js';
import type { ResolvedPath } from '../../host/workspace.js';
import { openResolvedFile } from '../files/open-file.js';

/**
 * Reads at most `maxBytes` of a checked UTF-8 file (through its checked parent directory, the
 * handle proved to be the resolved file); `truncated` says whether more was there.
 */
export async function readBoundedText(resolved: ResolvedPath, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  const { handle } = await openResolvedFile(resolved, displayPath(resolved));
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) break;
    }
    const truncated = filled > maxBytes;
    return { text: new TextDecoder().decode(buffer.subarray(0, Math.min(filled, maxBytes))), truncated };
  } finally {
    await handle.close();
  }
}
