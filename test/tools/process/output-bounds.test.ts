import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { defaultOutputShownBytes } from '../../../src/host/step-output.js';
import { completeUtf8Length } from '../../../src/host/utf8.js';
import { BoundedCapture } from '../../../src/tools/process/output-capture.js';
import { RetainedOutput } from '../../../src/tools/process/retained-output.js';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('a child printing 1 GiB', () => {
  it('is truncated at the limit, its progress stops at the bound and counts the rest, and the host process stays under 200 MB', async () => {
    // A fresh process measures the host alone: the test runner's own memory would blur it.
    const measured = await execa(process.execPath, ['--import', 'tsx', path.join(here, 'measure-peak-rss.ts')], {
      cwd: path.resolve(here, '../../..'),
      stdin: 'ignore',
      timeout: 90_000,
    });
    const facts = JSON.parse(measured.stdout) as {
      status: string;
      truncated: boolean;
      stdoutBytes: number;
      progressBytes: number;
      omitted: { lines: number; bytes: number };
      peakRssMb: number;
    };
    expect(facts).toMatchObject({ status: 'success', truncated: true, stdoutBytes: 1024 * 1024, progressBytes: defaultOutputShownBytes });
    // Every byte is either carried by a progress event or counted as left out: 64-byte lines.
    expect(facts.omitted).toEqual({ lines: (1024 ** 3 - defaultOutputShownBytes) / 64, bytes: 1024 ** 3 - defaultOutputShownBytes });
    expect(facts.peakRssMb).toBeLessThan(200);
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
