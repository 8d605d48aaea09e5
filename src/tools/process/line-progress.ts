import type { ToolProgress } from '../../host/tool.js';
import { decodeUtf8 } from './output-capture.js';

/** Longest progress line; the rest of a longer line is cut (the full output is in the result). */
export const maxProgressLineBytes = 1000;
/** Most progress lines one call emits per second; the newest line beyond that is shown late. */
export const maxProgressLinesPerSecond = 50;

const newline = 0x0a;

/**
 * Splits a byte stream into complete lines, keeping at most `maxProgressLineBytes` of each, so a
 * child that prints one endless line costs no memory here. While `wantsEveryLine` says no (the
 * throttle is full), only the last complete line of each chunk is produced, so a flood of short
 * lines costs one line per chunk rather than one per line.
 */
export class LineSplitter {
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private cut = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly wantsEveryLine: () => boolean = () => true,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(newline); end !== -1; end = chunk.indexOf(newline, start)) {
      if (!this.wantsEveryLine()) {
        end = chunk.lastIndexOf(newline);
        const previous = chunk.lastIndexOf(newline, end - 1);
        if (previous >= start) {
          this.discardPartial();
          start = previous + 1;
        }
      }
      this.keep(chunk.subarray(start, end));
      this.flush();
      start = end + 1;
    }
    this.keep(chunk.subarray(start));
  }

  /** Emits the last line if the stream ended without a newline. */
  end(): void {
    if (this.partialBytes > 0 || this.cut) this.flush();
  }

  private keep(bytes: Buffer): void {
    const room = maxProgressLineBytes - this.partialBytes;
    if (bytes.length > room) this.cut = true;
    if (room <= 0 || bytes.length === 0) return;
    const kept = Buffer.from(bytes.subarray(0, room));
    this.partial.push(kept);
    this.partialBytes += kept.length;
  }

  private flush(): void {
    const line = decodeUtf8(Buffer.concat(this.partial, this.partialBytes)).replace(/\r$/, '');
    this.onLine(this.cut ? `${line}…` : line);
    this.discardPartial();
  }

  private discardPartial(): void {
    this.partial = [];
    this.partialBytes = 0;
    this.cut = false;
  }
}

/**
 * Bounds how many progress updates a call emits: up to `maxProgressLinesPerSecond` pass at once;
 * beyond that only the newest line of each stream is held and shown when the second is over, so
 * a display always ends on the latest lines without being flooded.
 */
export class ProgressThrottle {
  private windowStartedAt = 0;
  private emittedInWindow = 0;
  private readonly held = new Map<ToolProgress['stream'], ToolProgress>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly emit: (update: ToolProgress) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether an update offered now would be emitted at once rather than held. */
  hasRoom(): boolean {
    this.rollWindow();
    return this.emittedInWindow < maxProgressLinesPerSecond;
  }

  offer(update: ToolProgress): void {
    if (this.hasRoom()) {
      this.emittedInWindow++;
      this.emit(update);
      return;
    }
    this.held.delete(update.stream);
    this.held.set(update.stream, update);
    this.timer ??= setTimeout(() => this.release(), this.windowStartedAt + 1000 - this.now());
    this.timer.unref();
  }

  /** Emits the held lines (the newest of each stream not yet shown) and stops the timer. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const update of this.takeHeld()) this.emit(update);
  }

  private release(): void {
    this.timer = undefined;
    for (const update of this.takeHeld()) this.offer(update);
  }

  /** The held lines in the order they arrived, removed from the hold. */
  private takeHeld(): ToolProgress[] {
    const updates = [...this.held.values()];
    this.held.clear();
    return updates;
  }

  private rollWindow(): void {
    if (this.now() - this.windowStartedAt < 1000) return;
    this.windowStartedAt = this.now();
    this.emittedInWindow = 0;
  }
}
