import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SecretMasker } from '../../src/host/masking.js';

describe('SecretMasker', () => {
  const secret = 'hunter2-canary';
  const masker = new SecretMasker([secret, 'multi\nline-secret\nvalue']);

  it('masks the value, its base64 and URL-encoded forms, and each line of a multi-line secret', () => {
    expect(masker.mask(`token=${secret}!`)).toBe('token=***!');
    expect(masker.mask(Buffer.from(secret).toString('base64'))).toBe('***');
    expect(masker.mask(encodeURIComponent('multi\nline-secret\nvalue'))).toBe('***');
    expect(masker.mask('multi\nline-secret\nvalue')).toBe('***');
    expect(masker.mask('printed alone: line-secret')).toBe('printed alone: ***');
  });

  it('refuses a secret too short to mask', () => {
    expect(() => new SecretMasker(['abc'])).toThrow(/shorter than 4/);
  });

  it('masks deep values, keys included', () => {
    expect(masker.maskDeep({ [secret]: [secret, 1, { a: `x${secret}` }] })).toEqual({ '***': ['***', 1, { a: 'x***' }] });
  });

  it('masks secrets split across stream chunks at any boundary', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), fc.array(fc.nat(80), { maxLength: 6 }), (before, after, cuts) => {
        const text = `${before}${secret}${after}`;
        const stream = masker.stream();
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        let output = '';
        let last = 0;
        for (const point of points) {
          output += stream.push(text.slice(last, point));
          last = point;
        }
        output += stream.push(text.slice(last)) + stream.end();
        expect(output).not.toContain(secret);
        expect(output).toBe(masker.mask(text));
      }),
      { numRuns: 500 },
    );
  });

  it('masks base64 of a secret at all three alignments in an encoded stream, whatever comes before or after', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 8 }), (before, after) => {
        const encoded = Buffer.concat([before, Buffer.from(secret), after]).toString('base64');
        const masked = masker.mask(encoded);
        expect(masked).toContain('***');
        // What is left cannot be decoded back into more than two bytes of the secret.
        for (const piece of masked.split('***')) {
          for (const skip of [0, 1, 2, 3]) expect(Buffer.from(piece.slice(skip), 'base64').toString('latin1')).not.toContain(secret.slice(0, 3));
        }
      }),
      { numRuns: 300 },
    );
    expect(masker.mask(Buffer.from(`user:${secret}`).toString('base64'))).toBe('dXNlcjpo***Q==');
  });

  it('lets complete lines through a stream at once unless a secret spans lines', () => {
    const single = new SecretMasker([secret]).stream();
    expect(single.push('first line\nsecond')).toBe('first line\n');
    expect(single.push(` ${secret}\n`) + single.end()).toBe('second ***\n');
    const multi = masker.stream();
    expect(multi.push('multi\n')).toBe('');
    expect(multi.push('line-secret\nvalue\n') + multi.end()).toBe('***\n');
  });
});
