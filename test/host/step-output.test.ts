import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HostEvent } from '../../src/host/events.js';
import { SecretMasker } from '../../src/host/masking.js';
import { maxProgressChars } from '../../src/host/progress.js';
import { StepOutput, type OutputLog, type OutputLogs, type OutputStream } from '../../src/host/step-output.js';

/** A StepOutput whose events and log are recorded. */
function recorded(options: { limitBytes?: number; masker?: SecretMasker; logs?: boolean } = {}) {
  const events: HostEvent[] = [];
  const logged: { stream: OutputStream; bytes: Buffer }[] = [];
  let closed = 0;
  const logs: OutputLogs = {
    open: ({ stepId, attempt }): OutputLog => ({
      place: `/logs/${stepId}.${attempt}.log`,
      write: (stream, bytes) => void logged.push({ stream, bytes: Buffer.from(bytes) }),
      close: () => void closed++,
    }),
  };
  const output = new StepOutput({
    stepId: 'build',
    attempt: 1,
    options: { ...(options.limitBytes !== undefined && { limitBytes: options.limitBytes }), ...(options.logs !== false && { logs }) },
    masker: options.masker,
    emit: (event) => void events.push(event),
  });
  const progress = () => events.filter((event) => event.type === 'step_progress');
  return {
    output,
    events,
    progress,
    lines: (stream?: OutputStream) =>
      progress()
        .filter((event) => stream === undefined || event.stream === stream)
        .flatMap((event) => event.message.split('\n')),
    logged: (stream?: OutputStream) => Buffer.concat(logged.filter((entry) => stream === undefined || entry.stream === stream).map((entry) => entry.bytes)).toString('latin1'),
    closed: () => closed,
  };
}

describe('the output of a call', () => {
  it('carries every line in order, whole lines only, across chunks and streams', () => {
    const { output, progress } = recorded();
    output.write('stdout', Buffer.from('one\ntw'));
    output.write('stderr', Buffer.from('oops\n'));
    output.write('stdout', Buffer.from('o\r\nthree'));
    expect(progress()).toEqual([
      { type: 'step_progress', stepId: 'build', message: 'one', stream: 'stdout' },
      { type: 'step_progress', stepId: 'build', message: 'oops', stream: 'stderr' },
      { type: 'step_progress', stepId: 'build', message: 'two', stream: 'stdout' },
    ]);
    output.end();
    expect(progress().at(-1)).toEqual({ type: 'step_progress', stepId: 'build', message: 'three', stream: 'stdout' });
  });

  it('ends a line at a lone carriage return, as the GitHub Actions runner and a terminal do, even when its line feed comes in the next chunk', () => {
    const { output, lines } = recorded();
    output.write('stdout', Buffer.from('10%\r20%\r'));
    output.write('stdout', Buffer.from('\nnext\n'));
    output.end();
    expect(lines()).toEqual(['10%', '20%', 'next']);
  });

  it('sends the lines of one chunk together, in events of at most 16 KiB of text', () => {
    const { output, progress, lines } = recorded();
    const chunk = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n');
    output.write('stdout', Buffer.from(`${chunk}\n`));
    output.end();
    expect(progress().length).toBeGreaterThan(1);
    expect(progress().length).toBeLessThan(10);
    for (const event of progress()) expect(event.message.length).toBeLessThanOrEqual(maxProgressChars);
    expect(lines()).toEqual(chunk.split('\n'));
  });

  it('shows a line too long to hold in pieces, and costs no memory for an endless one', () => {
    const { output, progress } = recorded();
    for (let i = 0; i < 100; i++) output.write('stdout', Buffer.alloc(64 * 1024, 0x61));
    output.write('stdout', Buffer.from('\nnext\n'));
    output.end();
    const messages = progress().map((event) => event.message);
    expect(messages.at(-1)).toBe('next');
    expect(messages.slice(0, -1).join('')).toBe('a'.repeat(100 * 64 * 1024));
    for (const message of messages) expect(message.length).toBeLessThanOrEqual(maxProgressChars);
  });

  it('shows bytes that are not UTF-8 as \\xNN, and never cuts a character in half', () => {
    const { output, lines } = recorded();
    const euro = Buffer.from('€');
    output.write('stdout', Buffer.concat([Buffer.from('bad '), Buffer.from([0xff, 0xfe]), Buffer.from(' end\n'), euro.subarray(0, 1)]));
    output.write('stdout', Buffer.concat([euro.subarray(1), Buffer.from('\n')]));
    output.end();
    expect(lines()).toEqual(['bad \\xff\\xfe end', '€']);
  });

  it('stops at the bound on a whole line, counts what it leaves out, and names the log once, at the end', () => {
    const { output, events, lines } = recorded({ limitBytes: 20 });
    output.write('stdout', Buffer.from('first line\nsecond line\nthird\n'));
    output.write('stderr', Buffer.from('an error\nand its end'));
    expect(lines()).toEqual(['first line']);
    expect(events.some((event) => event.type === 'step_output_omitted')).toBe(false);
    output.end();
    expect(events.at(-1)).toEqual({ type: 'step_output_omitted', stepId: 'build', lines: 4, bytes: 38, limitBytes: 20, log: '/logs/build.1.log' });
  });

  it('keeps every byte in the log, stream by stream, and closes it once', () => {
    const { output, logged, closed } = recorded({ limitBytes: 5 });
    output.write('stdout', Buffer.from('a long line\n'));
    output.write('stderr', Buffer.from([0xff, 0x0a]));
    output.end();
    output.write('stdout', Buffer.from('after the end\n'));
    expect(logged('stdout')).toBe('a long line\n');
    expect(logged('stderr')).toBe('\xff\n');
    expect(closed()).toBe(1);
  });

  it('opens no log for a call that prints nothing', () => {
    const { output, events, logged } = recorded();
    output.end();
    expect(events).toEqual([]);
    expect(logged()).toBe('');
  });

  it('masks secrets before anything is cut, logged or sent, even one split across chunks', () => {
    const masker = new SecretMasker(['hunter2-secret']);
    const { output, lines, logged } = recorded({ masker });
    output.write('stdout', Buffer.from('token hunter2-se'));
    output.write('stdout', Buffer.from('cret here\n'));
    output.end();
    expect(lines()).toEqual(['token *** here']);
    expect(logged()).toBe('token *** here\n');
  });

  it('accounts for every byte and line: each stream shows a prefix of what it printed, and the rest is counted as left out', () => {
    const chunk = fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes.map((byte) => (byte % 5 === 0 ? 0x0a : 0x61 + (byte % 26)))));
    const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') || text === '' ? 1 : 0);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom<OutputStream>('stdout', 'stderr'), chunk), { maxLength: 20 }), fc.integer({ min: 0, max: 500 }), (writes, limitBytes) => {
        const { output, events, lines, logged } = recorded({ limitBytes });
        for (const [stream, bytes] of writes) output.write(stream, bytes);
        output.end();
        let shownBytes = 0;
        let shownLines = 0;
        let printedLines = 0;
        for (const stream of ['stdout', 'stderr'] as const) {
          const printed = Buffer.concat(writes.filter(([at]) => at === stream).map(([, bytes]) => bytes)).toString('latin1');
          const shown = lines(stream);
          const text = shown.length === 0 ? '' : `${shown.join('\n')}${printed.length > shown.join('\n').length ? '\n' : ''}`;
          expect(printed.startsWith(text)).toBe(true);
          shownBytes += text.length;
          shownLines += shown.length;
          printedLines += lineCount(printed);
        }
        const total = writes.reduce((sum, [, bytes]) => sum + bytes.length, 0);
        expect(logged().length).toBe(total);
        expect(shownBytes).toBeLessThanOrEqual(limitBytes);
        const omitted = events.find((event) => event.type === 'step_output_omitted');
        expect(shownBytes + (omitted?.bytes ?? 0)).toBe(total);
        expect(shownLines + (omitted?.lines ?? 0)).toBe(printedLines);
      }),
    );
  });
});
