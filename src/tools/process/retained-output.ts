import { completeUtf8Length } from '../../host/utf8.js';

export interface OutputSlice {
  /** Where the returned content starts (later than asked when older output was already dropped). */
  offset: number;
  content: string;
  /** Where the next read should start. */
  nextOffset: number;
  /** Bytes between the asked offset and `offset` that are no longer kept. */
  droppedBytes: number;
}

/**
 * Keeps the newest `limitBytes` of a long-running stream, addressed by absolute byte offsets, so
 * a reader can poll "everything since offset N" while memory stays bounded.
 */
export class RetainedOutput {
  private chunks: Buffer[] = [];
  private startOffset = 0;
  private endOffset = 0;

  constructor(private readonly limitBytes: number) {}

  /** Offset just past the last byte seen. */
  get end(): number {
    return this.endOffset;
  }

  add(chunk: Buffer): void {
    this.chunks.push(Buffer.from(chunk));
    this.endOffset += chunk.length;
    while (this.endOffset - this.startOffset > this.limitBytes) {
      const first = this.chunks[0]!;
      const excess = this.endOffset - this.startOffset - this.limitBytes;
      if (first.length <= excess) {
        this.chunks.shift();
        this.startOffset += first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.startOffset += excess;
      }
    }
  }

  /** Up to `maxBytes` of output from `offset` on (whole UTF-8 characters only). */
  read(offset: number, maxBytes: number): OutputSlice {
    const from = Math.min(Math.max(offset, this.startOffset), this.endOffset);
    const kept = Buffer.concat(this.chunks);
    const bytes = kept.subarray(from - this.startOffset, Math.min(from - this.startOffset + maxBytes, kept.length));
    const complete = completeUtf8Length(bytes);
    return {
      offset: from,
      content: bytes.toString('utf8', 0, complete),
      nextOffset: from + complete,
      droppedBytes: Math.max(0, Math.min(from, this.startOffset) - offset),
    };
  }

  /** Whether `text` appears in the kept output at or after `offset`. */
  includes(text: string, offset: number): boolean {
    const from = Math.max(offset, this.startOffset) - this.startOffset;
    return Buffer.concat(this.chunks).includes(text, from);
  }
}
