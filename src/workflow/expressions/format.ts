import { ValueError } from './errors.js';

/** Literal text, or the index of the argument to insert. */
export type FormatPiece = string | number;

/**
 * Splits a `format()` string: `{0}`, `{1}`… are placeholders, `{{` and `}}` stand for literal
 * braces. Any other brace is an error, as in GitHub Actions.
 */
function parseFormat(format: string): FormatPiece[] {
  const pieces: FormatPiece[] = [];
  let text = '';
  let position = 0;
  while (position < format.length) {
    const char = format[position]!;
    if ((char === '{' || char === '}') && format[position + 1] === char) {
      text += char;
      position += 2;
      continue;
    }
    if (char === '}') throw new ValueError(`format string has a lone "}" at position ${position}; write "}}" for a literal brace`);
    if (char !== '{') {
      text += char;
      position += 1;
      continue;
    }
    const placeholder = /^\{(\d+)\}/.exec(format.slice(position, position + 12));
    if (!placeholder) {
      throw new ValueError(`format string has an invalid placeholder at position ${position}; use {0}, {1}… or "{{" for a literal brace`);
    }
    if (text !== '') pieces.push(text);
    text = '';
    pieces.push(Number(placeholder[1]));
    position += placeholder[0].length;
  }
  if (text !== '') pieces.push(text);
  return pieces;
}

/** Parses a format string and checks that `given` values cover its highest placeholder. */
export function parseFormatFor(format: string, given: number): FormatPiece[] {
  const pieces = parseFormat(format);
  const needed = pieces.reduce<number>((most, piece) => (typeof piece === 'number' ? Math.max(most, piece + 1) : most), 0);
  if (needed > given) {
    throw new ValueError(`format() refers to {${needed - 1}} but is given ${given} value${given === 1 ? '' : 's'} after the format string`);
  }
  return pieces;
}
