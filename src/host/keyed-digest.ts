import { createHmac, randomBytes, timingSafeEqual, type Hmac } from 'node:crypto';

/*
 * Digests of values that may be secret are keyed (HMAC-SHA256): without the key, a digest tells
 * nothing about the value, so a short secret (a PIN in a file's content, a token in a header)
 * cannot be found by digesting guesses. The same key authenticates what rho keeps between runs
 * (`sealText`): a file only someone holding the key could have written.
 */

/** A secret key for digests and seals: 32 random bytes. */
export type DigestKey = Buffer;

export const digestKeyBytes = 32;

/** A new random key. */
export function newDigestKey(): DigestKey {
  return randomBytes(digestKeyBytes);
}

/**
 * The key of digests that live only as long as this process (a request's fingerprint, the
 * digests of what a request sends): made at start-up, never written anywhere, never shown.
 */
const processKey = newDigestKey();

/** An incremental keyed hash, for content read in chunks. */
export function keyedHash(key: DigestKey): Hmac {
  return createHmac('sha256', key);
}

/** The keyed digest (hex) of a text under `key`. */
export function keyedDigest(key: DigestKey, text: string): string {
  return keyedHash(key).update(text, 'utf8').digest('hex');
}

/** The keyed digest (hex) of a text under this process's own key (see `processKey`). */
export function processDigest(text: string): string {
  return keyedDigest(processKey, text);
}

/** A separator no purpose contains: a seal of one purpose never verifies as another's. */
const purposeEnd = '\u0000';

/**
 * A text authenticated for one purpose (`rho up-to-date …`, `rho sandbox-probe`): the first line
 * is the keyed digest of the purpose and the body, the rest is the body as given.
 */
export function sealText(key: DigestKey, purpose: string, body: string): string {
  return `${keyedDigest(key, `${purpose}${purposeEnd}${body}`)}\n${body}`;
}

/** The body of a text `sealText` made with this key and purpose; undefined for anything else (edited, another key, another purpose, not sealed). */
export function openSealed(key: DigestKey, purpose: string, sealed: string): string | undefined {
  const newline = sealed.indexOf('\n');
  if (newline !== 64) return undefined;
  const body = sealed.slice(newline + 1);
  const expected = Buffer.from(keyedDigest(key, `${purpose}${purposeEnd}${body}`), 'hex');
  const given = Buffer.from(sealed.slice(0, newline), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected) ? body : undefined;
}
