import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentDigest } from '../../src/host/fingerprint.js';
import { keyedDigest, newDigestKey, openSealed, sealText } from '../../src/host/keyed-digest.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('keyed digests', () => {
  it('differ from a plain digest and between keys, so a guess cannot be tested without the key', () => {
    const [one, two] = [newDigestKey(), newDigestKey()];
    expect(keyedDigest(one, '4821')).toBe(keyedDigest(one, '4821'));
    expect(keyedDigest(one, '4821')).not.toBe(keyedDigest(two, '4821'));
    expect(keyedDigest(one, '4821')).not.toBe(sha256('4821'));
  });

  it('key what a request sends with this process’s own key: stable within the process, never a plain digest', () => {
    expect(contentDigest('pin 4821')).toBe(contentDigest('pin 4821'));
    expect(contentDigest('pin 4821')).not.toBe(sha256('pin 4821'));
    expect(contentDigest('pin 4821')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('sealed texts', () => {
  const key = newDigestKey();

  it('give back the body sealed with the same key and purpose, whatever it holds', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (body) => {
        expect(openSealed(key, 'rho test', sealText(key, 'rho test', body))).toBe(body);
      }),
    );
  });

  it('refuse a changed body or seal, another key, another purpose, and anything unsealed', () => {
    const sealed = sealText(key, 'rho test', '{"steps":{}}\n');
    expect(openSealed(key, 'rho test', sealed.replace('steps', 'stepz'))).toBeUndefined();
    expect(openSealed(key, 'rho test', `${sealed.slice(0, 63)}${sealed[63] === '0' ? '1' : '0'}${sealed.slice(64)}`)).toBeUndefined();
    expect(openSealed(newDigestKey(), 'rho test', sealed)).toBeUndefined();
    expect(openSealed(key, 'rho other', sealed)).toBeUndefined();
    // A purpose cannot be stretched into the body: the separator keeps them apart.
    expect(openSealed(key, 'rho', sealText(key, 'rho test', ''))).toBeUndefined();
    for (const unsealed of ['', '{"steps":{}}', `${'z'.repeat(64)}\n{}`, `${sealed.slice(0, 10)}\n{}`]) expect(openSealed(key, 'rho test', unsealed)).toBeUndefined();
  });
});
