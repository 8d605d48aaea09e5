import { createRequire } from 'node:module';
import { looksBinary } from './content.js';

/** Larger inputs get no diff: computing and showing it would cost more than it tells. */
export const diffableBytes = 512 * 1024;
const diffTimeoutMs = 500;

/** The diff library loads with the first diff shown, not with every run (diff is synchronous, so through its CommonJS build). */
const require = createRequire(import.meta.url);

/**
 * A unified diff for display (`metadata.diff`), or a one-line note when the content is binary,
 * too large, or too different to diff quickly. `before` undefined means the file is new.
 */
export function unifiedDiff(shown: string, before: Buffer | undefined, after: Buffer): string {
  if ((before && looksBinary(before)) || looksBinary(after)) return `(binary content: no diff for ${shown})`;
  if ((before?.length ?? 0) + after.length > diffableBytes) return `(no diff for ${shown}: more than ${diffableBytes} bytes)`;
  const { createTwoFilesPatch, FILE_HEADERS_ONLY } = require('diff') as typeof import('diff');
  const patch = createTwoFilesPatch(before ? `a/${shown}` : '/dev/null', `b/${shown}`, before?.toString('utf8') ?? '', after.toString('utf8'), undefined, undefined, {
    context: 3,
    timeout: diffTimeoutMs,
    headerOptions: FILE_HEADERS_ONLY,
  });
  return patch ?? `(no diff for ${shown}: too many changes to compute quickly)`;
}
