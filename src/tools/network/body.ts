/** A response body read up to a limit: reading stops (and the stream is cancelled) at the cap. */
export interface BoundedBody {
  bytes: Buffer;
  truncated: boolean;
}

export async function readBoundedBody(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<BoundedBody> {
  if (!body) return { bytes: Buffer.alloc(0), truncated: false };
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks, size), truncated: false };
      const room = maxBytes - size;
      if (value.byteLength > room) {
        chunks.push(Buffer.from(value.buffer, value.byteOffset, room));
        return { bytes: Buffer.concat(chunks, maxBytes), truncated: true };
      }
      chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

const jsonContentType = /^application\/(?:[\w.+-]+\+)?json\b/i;

/** The body as JSON when the server says it is JSON and it parses; undefined otherwise. */
export function parseJsonBody(text: string, contentType: string | null, truncated: boolean): unknown {
  if (truncated || !contentType || !jsonContentType.test(contentType)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
