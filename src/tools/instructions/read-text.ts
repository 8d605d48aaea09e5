import { open } from 'node:fs/promises';

/** Reads at most `maxBytes` of a UTF-8 file; `truncated` says whether more was there. */
export async function readBoundedText(canonical: string, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  const handle = await open(canonical, 'r');
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
