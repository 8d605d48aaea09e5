/**
 * The spellings a secret can take in text, as regular-expression sources: what programs print
 * when they encode a value, and what rho's own messages do when they quote one. A masker that
 * knows these finds a secret however it was written, so no message has to mask before it formats.
 */
export interface SecretForm {
  /** A regular-expression source matching the form (no flags needed). */
  source: string;
  /** The most characters a match can span: a stream holds back this many less one. */
  longest: number;
  /** Whether a match can span a line break of the text it is found in. */
  crossesLines: boolean;
}

/** Shortest secret that can be masked without hiding ordinary text. */
export const minMaskableLength = 4;

const regExpSyntax: ReadonlySet<string> = new Set('.*+?^${}()|[]\\/');

/** `text` as a regular expression that matches it literally. Built per character: secrets are escaped by the thousand characters. */
function escapeRegExp(text: string): string {
  let escaped = '';
  for (const character of text) escaped += regExpSyntax.has(character) ? `\\${character}` : character;
  return escaped;
}

/** A hex digit in either case: `%2f` and `%2F`, `\u00e9` and `\u00E9` are the same byte. */
function hexPattern(value: number, digits: number): string {
  return [...value.toString(16).padStart(digits, '0')].map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit)).join('');
}

/**
 * Escapes of single characters: JSON's and JavaScript's (also twice over, as JSON inside JSON
 * writes them), HTML's, a space as `+` (forms, `quote_plus`), a backslash as `/` (URLs make one
 * of it) and as the glob class `[\\]` rho's rules write; `\e` is how rho's approval prompts show ESC.
 */
const shortEscapes: Readonly<Record<string, readonly string[]>> = {
  '"': ['\\\\\\"', '&quot;', '&#34;'],
  '\\': ['\\\\', '\\\\\\\\', '/', '[\\\\]'],
  '/': ['\\/'],
  '\n': ['\\n'],
  '\r': ['\\r'],
  '\t': ['\\t'],
  '\b': ['\\b'],
  '\f': ['\\f'],
  '\u001b': ['\\e'],
  '&': ['&amp;'],
  '<': ['&lt;'],
  '>': ['&gt;'],
  "'": ['&#39;', '&#x27;', '&apos;'],
  ' ': ['+'],
};

/**
 * The alternatives for one code point, each a regex source with its length: itself; for any
 * character that is not a letter or digit, percent-encoded (`%2F`, `%2f`: every encoder, from
 * `encodeURIComponent` to Python's `quote_plus`, encodes a subset of these) and escaped as `\u`
 * with four hex digits (JSON with `ensure_ascii`, rho's `\u{…}` for control characters) or
 * escaped with a backslash;
 * the escapes of `shortEscapes`; and a character that Unicode decomposes, in its decomposed
 * form (NFD).
 */
function codePointAlternatives(character: string, decompose: boolean): { source: string; length: number }[] {
  if (/^[A-Za-z0-9]$/.test(character)) return [{ source: character, length: 1 }];
  const bytes = [...Buffer.from(character, 'utf8')];
  const units = character.length === 1 ? [character.charCodeAt(0)] : [character.charCodeAt(0), character.charCodeAt(1)];
  const alternatives = [
    { source: escapeRegExp(character), length: character.length },
    { source: bytes.map((byte) => `%${hexPattern(byte, 2)}`).join(''), length: bytes.length * 3 },
    { source: units.map((unit) => `\\\\u${hexPattern(unit, 4)}`).join(''), length: units.length * 6 },
  ];
  const codePoint = character.codePointAt(0)!;
  if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint <= 0x9f)) {
    const hex = codePoint.toString(16);
    alternatives.push({ source: `\\\\u\\{${hexPattern(codePoint, hex.length)}\\}`, length: hex.length + 4 });
  }
  // A backslash before any other ASCII character: glob, shell and JSON escapes (`\ `, `\*`, `\"`).
  const escapes = [...(codePoint < 0x80 && character !== '\\' ? [`\\${character}`] : []), ...(shortEscapes[character] ?? [])];
  for (const escaped of escapes) alternatives.push({ source: escapeRegExp(escaped), length: escaped.length });
  // Nothing below U+00C0 decomposes.
  const decomposed = decompose && codePoint >= 0xc0 ? character.normalize('NFD') : character;
  if (decomposed !== character) {
    const parts = [...decomposed].map((part) => codePointPattern(part, false));
    alternatives.push({ source: parts.map((part) => part.source).join(''), length: parts.reduce((sum, part) => sum + part.length, 0) });
  }
  return alternatives;
}

function codePointPattern(character: string, decompose: boolean): { source: string; length: number } {
  const alternatives = codePointAlternatives(character, decompose);
  if (alternatives.length === 1) return alternatives[0]!;
  return { source: `(?:${alternatives.map((alternative) => alternative.source).join('|')})`, length: Math.max(...alternatives.map((alternative) => alternative.length)) };
}

/** A text secret in every character-wise spelling: as it is, JSON- or HTML-escaped, percent-encoded, NFD. */
function textForm(value: string): SecretForm {
  const parts = [...value.normalize('NFC')].map((character) => codePointPattern(character, true));
  return {
    source: parts.map((part) => part.source).join(''),
    longest: parts.reduce((sum, part) => sum + part.length, 0),
    crossesLines: /[\r\n]/.test(value),
  };
}

/**
 * The base64 text a value encodes to wherever it starts in a longer encoded byte stream. Base64
 * works in 3-byte groups, so a value after 0, 1 or 2 other bytes (`printf 'x%s' "$S" | base64`,
 * `user:$TOKEN` in HTTP Basic auth) encodes three different ways. For each offset, the value's
 * bytes from the next group boundary on are encoded, keeping only the characters that depend on
 * the value alone: neither the bytes before it nor those after it change them.
 */
function base64Encodings(bytes: Buffer): string[] {
  const base64 = bytes.toString('base64');
  const forms = [base64, base64.replace(/=+$/, ''), bytes.toString('base64url')];
  for (const skipped of [0, 1, 2]) {
    const aligned = bytes.subarray(skipped);
    const determined = Math.floor((aligned.length * 4) / 3);
    forms.push(aligned.toString('base64').slice(0, determined), aligned.toString('base64url').slice(0, determined));
  }
  return [...new Set(forms)].filter((form) => form.length >= minMaskableLength);
}

/**
 * A base64 form, with a line break allowed between any two characters: `base64` wraps its
 * output at 76 columns, PEM and `openssl` at 64, MIME with CRLF, and where the breaks fall
 * depends on what came before the secret.
 */
function wrappedBase64Form(encoded: string): SecretForm {
  return { source: [...encoded].map(escapeRegExp).join('(?:\\r?\\n)?'), longest: encoded.length * 3 - 2, crossesLines: false };
}

/**
 * Every form of one secret: its text spellings, its base64 encodings (wrapped or not), and each
 * line of a multi-line secret on its own (a program may print one line of a key).
 */
export function secretForms(secret: string): SecretForm[] {
  const forms = [textForm(secret), ...base64Encodings(Buffer.from(secret, 'utf8')).map(wrappedBase64Form)];
  if (/[\r\n]/.test(secret)) {
    for (const line of secret.split(/\r?\n/)) if (line.trim().length >= minMaskableLength) forms.push(textForm(line));
  }
  return forms;
}

/**
 * A line that may continue a wrapped base64 form on the next: all base64 characters and as wide
 * as encoders wrap (64 or 76 columns, or more). A stream holds such a line back until it knows
 * whether a secret's encoding goes on after its line break.
 */
export function mayContinueWrappedBase64(line: string): boolean {
  return line.length >= 60 && /^[A-Za-z0-9+/_-]+$/.test(line);
}
