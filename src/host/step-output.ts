import type { HostEvent } from './events.js';
import type { OutputStream } from './tool.js';
import type { SecretMasker, StreamMasker } from './masking.js';
import { maxProgressChars } from './progress.js';
import { completeUtf8Length, decodeShowingInvalid } from './utf8.js';

export type { OutputStream };

/** Where the whole output of one attempt of a call is kept (the CLI's log files). */
export interface OutputLog {
  /** Where a person reads it (a file's path). */
  readonly place: string;
  /** Bytes as the call printed them, masked; the log must not hold them in memory. */
  write(stream: OutputStream, bytes: Buffer): void;
  close(): void;
}

/** Opens the logs of a host's calls. */
export interface OutputLogs {
  /** The log of one attempt of a call, opened when its first byte arrives; undefined when it keeps none. */
  open(subject: { stepId: string; attempt: number }): OutputLog | undefined;
}

/** How much of a call's output its events carry, and where all of it is kept. */
export interface OutputOptions {
  /** Bytes of each call's output that `step_progress` events carry; the rest is counted and named once. Default 10 MiB; `Infinity` for all. */
  limitBytes?: number;
  logs?: OutputLogs;
}

export const defaultOutputShownBytes = 10 * 1024 * 1024;

/** A partial line longer than this is shown in pieces rather than held (so one endless line costs no memory). */
const longestHeldLine = 16 * 1024;

const lineFeed = 0x0a;
const carriageReturn = 0x0d;
const streams: readonly OutputStream[] = ['stdout', 'stderr'];

function isBreak(byte: number): boolean {
  return byte === lineFeed || byte === carriageReturn;
}

/** Where the last complete line of a chunk ends (just past its break), holding back a final lone `\r` that a `\n` may follow. */
function endOfLastLine(chunk: Buffer): number {
  const feed = chunk.lastIndexOf(lineFeed);
  let ret = chunk.lastIndexOf(carriageReturn);
  if (ret === chunk.length - 1) ret = chunk.lastIndexOf(carriageReturn, ret - 1);
  return Math.max(feed, ret) + 1;
}

/** Line breaks in bytes as every display reads them: `\n`, `\r\n` and a lone `\r` each end one line. */
function countBreaks(bytes: Buffer): number {
  let breaks = 0;
  for (let at = bytes.indexOf(lineFeed); at !== -1; at = bytes.indexOf(lineFeed, at + 1)) breaks++;
  for (let at = bytes.indexOf(carriageReturn); at !== -1; at = bytes.indexOf(carriageReturn, at + 1)) if (bytes[at + 1] !== lineFeed) breaks++;
  return breaks;
}

/** One stream's masking at the source: bytes to text (whole characters only), masked, back to bytes. */
class MaskedBytes {
  private carry = Buffer.alloc(0);
  private readonly stream: StreamMasker;

  constructor(masker: SecretMasker) {
    this.stream = masker.stream();
  }

  push(chunk: Buffer): Buffer {
    const bytes = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    const whole = completeUtf8Length(bytes);
    this.carry = Buffer.from(bytes.subarray(whole));
    return Buffer.from(this.stream.push(decodeShowingInvalid(bytes.subarray(0, whole))), 'utf8');
  }

  end(): Buffer {
    const rest = this.carry.length === 0 ? '' : decodeShowingInvalid(this.carry);
    this.carry = Buffer.alloc(0);
    return Buffer.from(this.stream.push(rest) + this.stream.end(), 'utf8');
  }
}

/** The bytes of a line not yet ended, bounded by `longestHeldLine`. */
class HeldLine {
  private parts: Buffer[] = [];
  private bytes = 0;

  get length(): number {
    return this.bytes;
  }

  /** Appends bytes; returns the pieces of a line grown past the bound (each cut on a whole character). */
  add(bytes: Buffer): Buffer[] {
    if (bytes.length === 0) return [];
    this.parts.push(Buffer.from(bytes));
    this.bytes += bytes.length;
    if (this.bytes <= longestHeldLine) return [];
    const all = this.take();
    const pieces: Buffer[] = [];
    let start = 0;
    while (all.length - start > longestHeldLine) {
      const end = start + Math.max(1, completeUtf8Length(all.subarray(start, start + longestHeldLine)));
      pieces.push(all.subarray(start, end));
      start = end;
    }
    this.add(all.subarray(start));
    return pieces;
  }

  /** The held bytes followed by `rest`, and nothing held any more (`rest` itself, not a copy, when nothing was held). */
  take(rest?: Buffer): Buffer {
    const all = this.parts.length === 0 ? (rest ?? Buffer.alloc(0)) : Buffer.concat(rest ? [...this.parts, rest] : this.parts);
    this.parts = [];
    this.bytes = 0;
    return all;
  }
}

export interface StepOutputDeps {
  stepId: string;
  attempt: number;
  options: OutputOptions;
  masker: SecretMasker | undefined;
  emit(event: HostEvent): void;
}

/**
 * What one attempt of a call prints, on its way to a person: masked at the source, kept whole in
 * the call's log, and cut into lines that `step_progress` events carry in order — whole lines
 * only, up to 16 KiB of text an event (a longer line in pieces), up to the host's bound per call.
 * Past the bound nothing more is decoded or sent; it is counted, and one `step_output_omitted`
 * event says how many lines and bytes were left out and where the whole text is. Memory stays
 * bounded whatever a process prints.
 */
export class StepOutput {
  private readonly limitBytes: number;
  private readonly masks: Record<OutputStream, MaskedBytes> | undefined;
  private readonly held: Record<OutputStream, HeldLine> = { stdout: new HeldLine(), stderr: new HeldLine() };
  /** Whether a stream's last byte so far ended no line. */
  private readonly midLine: Record<OutputStream, boolean> = { stdout: false, stderr: false };
  private log: OutputLog | undefined;
  private logOpened = false;
  private shownBytes = 0;
  private omitted: { lines: number; bytes: number } | undefined;
  private ended = false;

  constructor(private readonly deps: StepOutputDeps) {
    this.limitBytes = deps.options.limitBytes ?? defaultOutputShownBytes;
    this.masks = deps.masker && !deps.masker.empty ? { stdout: new MaskedBytes(deps.masker), stderr: new MaskedBytes(deps.masker) } : undefined;
  }

  /** Where the whole output is, once any was printed. */
  get logPlace(): string | undefined {
    return this.log?.place;
  }

  write(stream: OutputStream, chunk: Uint8Array): void {
    if (this.ended || chunk.length === 0) return;
    const raw = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    this.take(stream, this.masks ? this.masks[stream].push(raw) : raw);
  }

  /** Flushes what masking held back and the lines not yet ended, reports what was left out, and closes the log. */
  end(): void {
    if (this.ended) return;
    if (this.masks) for (const stream of streams) this.take(stream, this.masks[stream].end());
    this.ended = true;
    for (const stream of streams) {
      const rest = this.held[stream].take();
      if (!this.omitted) {
        // A last line cut by the bound is one line left out.
        if (!this.show(stream, rest)) this.omitted!.lines += 1;
      } else {
        this.omitted.bytes += rest.length;
        if (this.midLine[stream]) this.omitted.lines += 1;
      }
    }
    this.log?.close();
    if (this.omitted) {
      this.deps.emit({
        type: 'step_output_omitted',
        stepId: this.deps.stepId,
        lines: this.omitted.lines,
        bytes: this.omitted.bytes,
        limitBytes: this.limitBytes,
        ...(this.log && { log: this.log.place }),
      });
    }
  }

  private take(stream: OutputStream, bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.logOf()?.write(stream, bytes);
    this.midLine[stream] = !isBreak(bytes[bytes.length - 1]!);
    // Past the bound the bytes are only counted: nothing more is decoded, held or sent.
    if (this.omitted) {
      this.omit(bytes);
      return;
    }
    const held = this.held[stream];
    const end = endOfLastLine(bytes);
    if (end > 0) this.show(stream, held.take(bytes.subarray(0, end)));
    for (const piece of held.add(bytes.subarray(end))) this.show(stream, piece);
  }

  private logOf(): OutputLog | undefined {
    if (!this.logOpened) {
      this.logOpened = true;
      this.log = this.deps.options.logs?.open({ stepId: this.deps.stepId, attempt: this.deps.attempt });
    }
    return this.log;
  }

  /** Sends whole lines (or a piece of a long one) while the bound has room, else counts them; false when some were left out. */
  private show(stream: OutputStream, bytes: Buffer): boolean {
    if (bytes.length === 0) return true;
    if (this.omitted) {
      this.omit(bytes);
      return false;
    }
    const room = this.limitBytes - this.shownBytes;
    if (bytes.length <= room) {
      this.shownBytes += bytes.length;
      this.send(stream, bytes);
      return true;
    }
    const fits = room <= 0 ? 0 : endOfLastLine(bytes.subarray(0, room));
    this.shownBytes += fits;
    this.send(stream, bytes.subarray(0, fits));
    this.omitted = { lines: 0, bytes: 0 };
    this.omit(bytes.subarray(fits));
    return false;
  }

  /** Counts bytes left out and the line breaks among them (a line still open is counted when the output ends). */
  private omit(bytes: Buffer): void {
    this.omitted!.bytes += bytes.length;
    this.omitted!.lines += countBreaks(bytes);
  }

  /** One event per 16 KiB of text at most, each holding whole lines joined by `\n`. */
  private send(stream: OutputStream, bytes: Buffer): void {
    if (bytes.length === 0) return;
    let text = decodeShowingInvalid(bytes);
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    if (text.endsWith('\n')) text = text.slice(0, -1);
    let start = 0;
    while (text.length - start > maxProgressChars) {
      const feed = text.lastIndexOf('\n', start + maxProgressChars);
      let end = feed >= start ? feed : start + maxProgressChars;
      if (feed < start && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
      this.emitLines(stream, text.slice(start, end));
      start = feed >= start ? end + 1 : end;
    }
    this.emitLines(stream, text.slice(start));
  }

  private emitLines(stream: OutputStream, message: string): void {
    this.deps.emit({ type: 'step_progress', stepId: this.deps.stepId, message, stream });
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
