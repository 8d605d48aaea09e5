/** Default and largest `max_output_bytes` for each of stdout and stderr. */
export const defaultOutputLimitBytes = 1024 * 1024;
export const maxOutputLimitBytes = 64 * 1024 * 1024;

/** How many leading bytes hold only whole UTF-8 characters (a byte limit can cut the last one in half). */
export function completeUtf8Length(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** Decodes bytes as UTF-8, dropping a character cut in half at the end. */
export function decodeUtf8(bytes: Buffer): string {
  return bytes.toString('utf8', 0, completeUtf8Length(bytes));
}

/**
 * Keeps the first `limitBytes` of a stream and counts the rest without keeping it, so a child
 * printing gigabytes costs no more memory than the limit while its pipe keeps draining.
 */
export class BoundedCapture {
  private readonly chunks: Buffer[] = [];
  private keptBytes = 0;
  private seenBytes = 0;

  constructor(private readonly limitBytes: number) {}

  add(chunk: Buffer): void {
    this.seenBytes += chunk.length;
    const room = this.limitBytes - this.keptBytes;
    if (room <= 0) return;
    const kept = chunk.length <= room ? chunk : Buffer.from(chunk.subarray(0, room));
    this.chunks.push(kept);
    this.keptBytes += kept.length;
  }

  get truncated(): boolean {
    return this.seenBytes > this.keptBytes;
  }

  get totalBytes(): number {
    return this.seenBytes;
  }

  text(): string {
    return decodeUtf8(Buffer.concat(this.chunks, this.keptBytes));
  }
}
