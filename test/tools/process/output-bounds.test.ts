import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it, vi } from 'vitest';
import { LineSplitter, ProgressThrottle, maxProgressLineBytes, maxProgressLinesPerSecond } from '../../../src/tools/process/line-progress.js';
import { BoundedCapture, completeUtf8Length } from '../../../src/tools/process/output-capture.js';
import { RetainedOutput } from '../../../src/tools/process/retained-output.js';
import type { ToolProgress } from '../../../src/host/tool.js';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('a child printing 1 GiB', () => {
  it('is truncated at the limit while the host process stays under 200 MB', async () => {
    // A fresh process measures the host alone: the test runner's own memory would blur it.
    const measured = await execa(process.execPath, ['--import', 'tsx', path.join(here, 'measure-peak-rss.ts')], {
      cwd: path.resolve(here, '../../..'),
      stdin: 'ignore',
      timeout: 90_000,
    });
    const facts = JSON.parse(measured.stdout) as { status: string; truncated: boolean; stdoutBytes: number; progressEvents: number; peakRssMb: number };
    expect(facts).toMatchObject({ status: 'success', truncated: true, stdoutBytes: 1024 * 1024 });
    expect(facts.peakRssMb).toBeLessThan(200);
    expect(facts.progressEvents).toBeGreaterThan(0);
  }, 120_000);
});

describe('BoundedCapture', () => {
  it('keeps the first bytes up to its limit and counts the rest', () => {
    const capture = new BoundedCapture(10);
    capture.add(Buffer.from('hello '));
    capture.add(Buffer.from('world, and more'));
    expect(capture.text()).toBe('hello worl');
    expect(capture.truncated).toBe(true);
    expect(capture.totalBytes).toBe(21);
  });

  it('is not truncated at exactly its limit', () => {
    const capture = new BoundedCapture(5);
    capture.add(Buffer.from('12345'));
    expect(capture.truncated).toBe(false);
  });

  it('never ends in half a character', () => {
    const capture = new BoundedCapture(4);
    capture.add(Buffer.from('aé€'));
    expect(capture.text()).toBe('aé');
  });
});

describe('completeUtf8Length', () => {
  it('drops only an incomplete trailing character', () => {
    const bytes = Buffer.from('a€😀');
    expect(completeUtf8Length(bytes)).toBe(bytes.length);
    expect(completeUtf8Length(bytes.subarray(0, bytes.length - 1))).toBe(4);
    expect(completeUtf8Length(bytes.subarray(0, 3))).toBe(1);
    expect(completeUtf8Length(Buffer.alloc(0))).toBe(0);
  });
});

describe('LineSplitter', () => {
  it('emits complete lines across chunks, and the last line at the end', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    splitter.push(Buffer.from('one\ntw'));
    splitter.push(Buffer.from('o\r\nthree'));
    expect(lines).toEqual(['one', 'two']);
    splitter.end();
    expect(lines).toEqual(['one', 'two', 'three']);
  });

  it('cuts an endless line instead of keeping it', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    for (let i = 0; i < 100; i++) splitter.push(Buffer.alloc(64 * 1024, 0x61));
    splitter.push(Buffer.from('\nnext\n'));
    expect(lines).toHaveLength(2);
    expect(Buffer.byteLength(lines[0]!)).toBeLessThanOrEqual(maxProgressLineBytes + 3);
    expect(lines[0]!.endsWith('…')).toBe(true);
    expect(lines[1]).toBe('next');
  });

  it('produces only the newest complete line of a chunk while the throttle is full', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter(
      (line) => lines.push(line),
      () => false,
    );
    splitter.push(Buffer.from('partial '));
    splitter.push(Buffer.from('end\nb\nc\nd'));
    expect(lines).toEqual(['c']);
    splitter.push(Buffer.from('one\n'));
    expect(lines).toEqual(['c', 'done']);
  });
});

describe('ProgressThrottle', () => {
  it('passes a bounded number per second and shows the newest held line of each stream later', () => {
    vi.useFakeTimers();
    try {
      const emitted: ToolProgress[] = [];
      const throttle = new ProgressThrottle((update) => emitted.push(update));
      for (let i = 1; i <= 200; i++) throttle.offer({ message: `out ${i}`, stream: 'stdout' });
      throttle.offer({ message: 'err 1', stream: 'stderr' });
      expect(emitted).toHaveLength(maxProgressLinesPerSecond);
      vi.advanceTimersByTime(1000);
      expect(emitted.slice(maxProgressLinesPerSecond)).toEqual([
        { message: 'out 200', stream: 'stdout' },
        { message: 'err 1', stream: 'stderr' },
      ]);
      throttle.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('flushes held lines on close', () => {
    const emitted: string[] = [];
    const throttle = new ProgressThrottle((update) => emitted.push(update.message));
    for (let i = 1; i <= maxProgressLinesPerSecond + 5; i++) throttle.offer({ message: `line ${i}`, stream: 'stdout' });
    throttle.close();
    expect(emitted.at(-1)).toBe(`line ${maxProgressLinesPerSecond + 5}`);
    expect(emitted).toHaveLength(maxProgressLinesPerSecond + 1);
  });
});

describe('RetainedOutput', () => {
  it('keeps the newest bytes, addressed by absolute offsets', () => {
    const output = new RetainedOutput(8);
    output.add(Buffer.from('0123456789'));
    output.add(Buffer.from('abcd'));
    expect(output.end).toBe(14);
    expect(output.read(0, 100)).toEqual({ offset: 6, content: '6789abcd', nextOffset: 14, droppedBytes: 6 });
    expect(output.read(10, 2)).toEqual({ offset: 10, content: 'ab', nextOffset: 12, droppedBytes: 0 });
    expect(output.read(99, 10)).toEqual({ offset: 14, content: '', nextOffset: 14, droppedBytes: 0 });
  });

  it('stops a read before a character cut in half, so the next read starts on it', () => {
    const output = new RetainedOutput(100);
    output.add(Buffer.from('a€b'));
    const first = output.read(0, 2);
    expect(first).toMatchObject({ content: 'a', nextOffset: 1 });
    expect(output.read(first.nextOffset, 10)).toMatchObject({ content: '€b', nextOffset: 5 });
  });

  it('finds text at or after an offset', () => {
    const output = new RetainedOutput(100);
    output.add(Buffer.from('booting\nready\n'));
    expect(output.includes('ready', 0)).toBe(true);
    expect(output.includes('ready', 9)).toBe(false);
  });
});
