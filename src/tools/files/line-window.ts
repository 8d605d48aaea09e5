import type { FileHandle } from 'node:fs/promises';

export interface LineWindowRequest {
  /** First line to return, 1-based. */
  offset: number;
  /** Number of lines to return; undefined for all up to the byte cap. */
  limit: number | undefined;
  maxBytes: number;
}

export interface LineWindow {
  content: string;
  /** True when `maxBytes` cut the requested lines short. */
  truncated: boolean;
  /** The line to pass as `offset` to continue, when lines remain after the returned ones. */
  nextOffset: number | undefined;
}

const chunkSize = 64 * 1024;
const newline = 0x0a;

async function* chunksOf(handle: FileHandle): AsyncGenerator<Buffer> {
  let position = 0;
  for (;;) {
    const buffer = Buffer.alloc(chunkSize);
    const { bytesRead } = await handle.read(buffer, 0, chunkSize, position);
    if (bytesRead === 0) return;
    position += bytesRead;
    yield buffer.subarray(0, bytesRead);
  }
}

/** Decodes UTF-8, dropping an incomplete character a byte cap may have cut in two. */
function decodePrefix(bytes: Buffer): string {
  return new TextDecoder('utf-8').decode(bytes, { stream: true });
}

/**
 * Streams an open file and returns whole lines [offset, offset + limit) within `maxBytes`.
 * Memory stays bounded by the cap, whatever the file's size or line lengths.
 */
export async function readLineWindow(handle: FileHandle, request: LineWindowRequest): Promise<LineWindow> {
  const end = request.limit === undefined ? Number.POSITIVE_INFINITY : request.offset + request.limit;
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let line: Buffer[] = [];
  let lineBytes = 0;
  let lineOverflows = false;
  let lineNumber = 1;

  const cut = (): LineWindow => {
    if (kept.length > 0) return { content: Buffer.concat(kept).toString('utf8'), truncated: true, nextOffset: lineNumber };
    return { content: decodePrefix(Buffer.concat(line)), truncated: true, nextOffset: lineNumber + 1 };
  };
  const keepLine = () => {
    kept.push(...line);
    keptBytes += lineBytes;
    line = [];
    lineBytes = 0;
  };

  for await (const chunk of chunksOf(handle)) {
    let start = 0;
    while (start < chunk.length) {
      if (lineNumber >= end) return { content: Buffer.concat(kept).toString('utf8'), truncated: false, nextOffset: lineNumber };
      const found = chunk.indexOf(newline, start);
      const stop = found === -1 ? chunk.length : found + 1;
      if (lineNumber >= request.offset && !lineOverflows) {
        const room = request.maxBytes - keptBytes - lineBytes;
        const piece = chunk.subarray(start, stop);
        if (piece.length > room) lineOverflows = true;
        const taken = piece.subarray(0, Math.max(0, room));
        line.push(taken);
        lineBytes += taken.length;
      }
      if (found !== -1) {
        if (lineNumber >= request.offset) {
          if (lineOverflows) return cut();
          keepLine();
        }
        lineNumber += 1;
      }
      start = stop;
    }
  }
  if (lineOverflows) return cut();
  keepLine();
  return { content: Buffer.concat(kept).toString('utf8'), truncated: false, nextOffset: undefined };
}
