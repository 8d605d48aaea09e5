import { StringDecoder } from 'node:string_decoder';
import type { SecretMasker } from '../../host/masking.js';

/**
 * A process's output stream with the run's secrets masked at the source, before anything cuts
 * it (a progress line at its byte limit, the captured output at its limit, a slice read from
 * a background process): a cut made after masking can never leave half a secret visible.
 */
export interface OutputMask {
  push(chunk: Buffer): Buffer;
  /** What is still held back once the stream has ended. */
  end(): Buffer;
}

const unmasked: OutputMask = { push: (chunk) => chunk, end: () => Buffer.alloc(0) };

/** A mask for one stream; output passes through untouched when the run has no secrets when it starts. */
export function outputMask(masker: SecretMasker | undefined): OutputMask {
  if (!masker || masker.empty) return unmasked;
  const decoder = new StringDecoder('utf8');
  const stream = masker.stream();
  return {
    push: (chunk) => Buffer.from(stream.push(decoder.write(chunk)), 'utf8'),
    end: () => Buffer.from(stream.push(decoder.end()) + stream.end(), 'utf8'),
  };
}
