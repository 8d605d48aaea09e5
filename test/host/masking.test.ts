import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HostError, ToolError } from '../../src/host/errors.js';
import { SecretMasker } from '../../src/host/masking.js';
import { approvalHeader } from '../../src/ui/approver/facts.js';
import { sampleProcessRequest } from '../../src/host/hooks/testing.js';

/** Python's `urllib.parse.quote_plus`: everything but letters, digits and `_.-~` percent-encoded, a space as `+`. */
/** What a masker's stream gives for `text` pushed in chunks cut at `cuts` (taken modulo its length), then ended. */
function streamedInChunks(masker: SecretMasker, text: string, cuts: readonly number[]): string {
  const stream = masker.stream();
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  let output = '';
  let last = 0;
  for (const point of points) {
    output += stream.push(text.slice(last, point));
    last = point;
  }
  return output + stream.push(text.slice(last)) + stream.end();
}

function quotePlus(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** JSON with every non-ASCII character escaped (Python's `json.dumps` default). */
function asciiJson(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `base64` as the coreutils program prints it: wrapped at 76 columns. */
function wrappedBase64(bytes: Buffer, width = 76): string {
  return bytes.toString('base64').replace(new RegExp(`(.{${width}})`, 'g'), '$1\n');
}

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

  it('masks the message of an error in a deep value, keeping its kind', () => {
    const [denied, refused, bug] = masker.maskDeep([
      new ToolError('policy_denied', `read ${secret} denied`),
      new HostError('usage', `no input ${secret}`),
      new TypeError(`cannot read ${secret}`),
    ]);
    expect([denied, refused, bug].map((error) => [error?.constructor.name, (error as ToolError).kind, error?.message])).toEqual([
      ['ToolError', 'policy_denied', 'read *** denied'],
      ['HostError', 'usage', 'no input ***'],
      ['ToolError', 'internal', 'cannot read ***'],
    ]);
  });

  it('masks secrets split across stream chunks at any boundary', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), fc.array(fc.nat(80), { maxLength: 6 }), (before, after, cuts) => {
        const text = `${before}${secret}${after}`;
        const output = streamedInChunks(masker, text, cuts);
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

  describe('every form a program or rho itself may write a secret in', () => {
    const tricky = 'pa\\ss "quoted" (it\'s)* word-1234 café';
    const masker = new SecretMasker([tricky]);
    const forms: Record<string, string> = {
      'JSON string': JSON.stringify(tricky),
      'JSON inside JSON': JSON.stringify(JSON.stringify(tricky)),
      'ASCII-only JSON': asciiJson(tricky),
      quote_plus: quotePlus(tricky),
      'percent-encoded, lower case': quotePlus(tricky).replace(/%[0-9A-F]{2}/g, (code) => code.toLowerCase()),
      encodeURIComponent: encodeURIComponent(tricky),
      NFD: tricky.normalize('NFD'),
      'NFD, percent-encoded': encodeURIComponent(tricky.normalize('NFD')),
      'HTML-escaped': tricky.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;'),
      'a URL path with \\ made /': new URL(`http://h/${tricky}`).pathname.slice(1),
      'base64 wrapped at 76': wrappedBase64(Buffer.concat([Buffer.from('x'.repeat(40)), Buffer.from(tricky)])),
      'base64 wrapped at 64 with CRLF': wrappedBase64(Buffer.concat([Buffer.from('y'.repeat(30)), Buffer.from(tricky)]), 64).replace(/\n/g, '\r\n'),
    };

    it.each(Object.entries(forms))('masks the secret written as %s', (_name, form) => {
      const masked = masker.mask(`before ${form} after`);
      expect(masked).toContain('***');
      expect(masked).not.toContain('word-1234');
      expect(masked).not.toContain('pa\\ss');
    });

    it('masks the approval prompt, which quotes what a process sets', () => {
      const header = approvalHeader({ stepId: 's', tool: 'exec', seq: 1, request: sampleProcessRequest({ env: { TOK: tricky } }), askedBy: 'process' } as never);
      expect(header).toContain('TOK=');
      expect(masker.mask(header)).not.toContain('word-1234');
    });

    it('masks base64 wrapped at any offset and width across any stream chunks, holding nothing forever', () => {
      const secret = 'sk-live-0123456789abcdef0123456789abcdef0123456789';
      const streamed = new SecretMasker([secret]);
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 80 }), fc.constantFrom(64, 76), fc.array(fc.nat(400), { maxLength: 6 }), (before, width, cuts) => {
          const text = `start\n${wrappedBase64(Buffer.concat([before, Buffer.from(secret)]), width)}\nend\n`;
          const output = streamedInChunks(streamed, text, cuts);
          expect(output).toBe(streamed.mask(text));
          const encoded = output.split('\n').slice(1, -2).join('');
          for (const piece of encoded.split('***')) {
            for (const skip of [0, 1, 2, 3]) expect(Buffer.from(piece.slice(skip), 'base64').toString('latin1')).not.toContain(secret.slice(20, 26));
          }
        }),
        { numRuns: 300 },
      );
    });

    it('lets a short line through a stream at once, but holds back a wide base64 line until the next shows whether it goes on', () => {
      const stream = new SecretMasker(['some-secret-value']).stream();
      expect(stream.push('Building\n')).toBe('Building\n');
      const wide = 'A'.repeat(76);
      const first = stream.push(`${wide}\n`);
      expect(first.length).toBeLessThan(wide.length);
      expect(first + stream.push('done\n')).toBe(`${wide}\ndone\n`);
    });
  });
});
