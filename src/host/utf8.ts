import { isUtf8 } from 'node:buffer';

/** How many leading bytes hold only whole UTF-8 characters (a byte limit can cut the last one in half). */
export function completeUtf8Length(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** Whether `byte` continues a character and lies in [low, high]. */
function within(byte: number | undefined, low = 0x80, high = 0xbf): boolean {
  return byte !== undefined && byte >= low && byte <= high;
}

/** The length of the well-formed UTF-8 character at `at` (no overlong forms, surrogates or code points past U+10FFFF), or 0. */
function characterLength(bytes: Uint8Array, at: number): number {
  const lead = bytes[at]!;
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return within(bytes[at + 1]) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const [low, high] = lead === 0xe0 ? [0xa0, 0xbf] : lead === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
    return within(bytes[at + 1], low, high) && within(bytes[at + 2]) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const [low, high] = lead === 0xf0 ? [0x90, 0xbf] : lead === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    return within(bytes[at + 1], low, high) && within(bytes[at + 2]) && within(bytes[at + 3]) ? 4 : 0;
  }
  return 0;
}

/**
 * Decodes UTF-8 with every byte that is not part of a well-formed character written as `\xNN`,
 * so output that is not text reads as the bytes it was rather than as a row of U+FFFD.
 */
export function decodeShowingInvalid(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (isUtf8(buffer)) return buffer.toString('utf8');
  let text = '';
  let start = 0;
  let at = 0;
  while (at < buffer.length) {
    const length = characterLength(buffer, at);
    if (length > 0) {
      at += length;
      continue;
    }
    text += `${buffer.toString('utf8', start, at)}\\x${buffer[at]!.toString(16).padStart(2, '0')}`;
    start = at += 1;
  }
  return text + buffer.toString('utf8', start);
}

/**
 * Where the first byte that is not part of a well-formed UTF-8 character stands in a text file
 * (line and column from 1, the column counted in characters), and that byte; undefined for a
 * file that is all UTF-8.
 */
export function invalidUtf8Position(bytes: Uint8Array): { line: number; col: number; byte: number } | undefined {
  if (isUtf8(bytes)) return undefined;
  let line = 1;
  let col = 1;
  for (let at = 0; at < bytes.length; ) {
    const length = characterLength(bytes, at);
    if (length === 0) return { line, col, byte: bytes[at]! };
    if (bytes[at] === 0x0a) {
      line++;
      col = 1;
    } else col++;
    at += length;
  }
  return undefined;
}

/** A text file's contents as UTF-8, or where they are not UTF-8 and what to do about it. */
export function decodeTextFile(bytes: Buffer): { text: string } | { problem: { line: number; col: number; message: string } } {
  const invalid = invalidUtf8Position(bytes);
  if (invalid === undefined) return { text: bytes.toString('utf8') };
  const { line, col, byte } = invalid;
  return { problem: { line, col, message: `the file is not UTF-8 text: byte 0x${byte.toString(16).padStart(2, '0')} here starts no character; save the file as UTF-8` } };
}
