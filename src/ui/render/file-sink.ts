import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { TextSink } from './renderer.js';

/** A text sink writing to a file, opened at once so a bad path fails before the run starts. */
export async function openFileSink(file: string): Promise<TextSink & { end(): Promise<void> }> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const stream: WriteStream = createWriteStream(file, { flags: 'w', mode: 0o644 });
  await Promise.race([once(stream, 'open'), once(stream, 'error').then(([error]) => Promise.reject(error as Error))]);
  return {
    write: (text) => void stream.write(text),
    end: () => new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve()))),
  };
}
