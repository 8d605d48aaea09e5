import { completeUtf8Length } from '../../host/utf8.js';

/** Default and largest `max_output_bytes` for each of stdout and stderr. */
export const defaultOutputLimitBytes = 1024 * 1024;
export const maxOutputLimitBytes = 64 * 1024 * 1024;

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

  /** Whether nothing more will be kept (the rest need only be counted, with `skip`). */
  get full(): boolean {
    return this.keptBytes >= this.limitBytes;
  }

  /** Counts bytes that are not kept. */
  skip(bytes: number): void {
    this.seenBytes += bytes;
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
