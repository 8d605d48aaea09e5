/**
 * Text rho shows a person — a process's output, an MCP server's descriptions, a question, a
 * workflow's names — made unable to act on the terminal or log that shows it. Control
 * characters (NUL, BEL, backspace, ESC and every escape sequence it starts: titles, OSC 52
 * clipboard writes, OSC 8 links, DCS, cursor movement), DEL, the C1 controls (U+0080–U+009F,
 * where U+009B starts a sequence too), the Unicode line separators and the bidirectional
 * controls that reorder what is shown are written out as escapes instead (`\e`, `\u{7}`), so a
 * reader sees what was printed and nothing happens. Colour codes (SGR, `ESC [ … m`) are the one
 * sequence that may pass, and only where colours are shown.
 */

/** Every character that could act on a terminal, or disguise the text around it. */
const unsafeCharacters = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069';
const anyUnsafe = new RegExp(`[${unsafeCharacters}]`);
/** In one line: line breaks and tabs too. */
const unsafeInLine = new RegExp(`[\\t\\n${unsafeCharacters}]`, 'g');
/** A colour code, or else one unsafe character; a lone or paired carriage return is a line break. */
const colourOrUnsafe = new RegExp(`(\\u001b\\[[0-9;:]*m)|\\r\\n?|[${unsafeCharacters}]`, 'g');
const resetColours = '\u001b[0m';

const named: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

function escaped(character: string): string {
  return named[character] ?? `\\u{${character.codePointAt(0)!.toString(16)}}`;
}

/**
 * Multi-line text made safe to show: line breaks and tabs are kept (a carriage return, alone or
 * before a line feed, is a line break: text after a lone one would otherwise overwrite the line).
 * With `colours`, colour codes pass, and a line that set one ends by resetting them, so a
 * colour a process left on never spills into rho's own lines; without, they are removed.
 */
export function safeText(text: string, colours: boolean): string {
  if (!anyUnsafe.test(text)) return text;
  const safe = text.replace(colourOrUnsafe, (match: string, colour: string | undefined) => {
    if (colour !== undefined) return colours ? colour : '';
    return match.startsWith('\r') ? '\n' : escaped(match);
  });
  return colours ? resetColoursByLine(safe) : safe;
}

/** Ends each line that sets a colour by resetting colours (only colour codes still hold an ESC). */
function resetColoursByLine(text: string): string {
  if (!text.includes('\u001b')) return text;
  return text
    .split('\n')
    .map((line) => (line.includes('\u001b') ? `${line}${resetColours}` : line))
    .join('\n');
}

/**
 * One line of text made safe to show (a prompt's field, a table cell, a title): every unsafe
 * character, line breaks and tabs included, is written as an escape, so an argument cannot
 * repaint a prompt or disguise what is being approved.
 */
export function printable(text: string): string {
  return text.replace(unsafeInLine, escaped);
}

const unsafeInJson = new RegExp(`[${unsafeCharacters}]`, 'g');

/**
 * JSON text with every unsafe character a JSON string may hold as it is (DEL, the C1 controls,
 * line separators, bidirectional controls; JSON escapes the others) written as a `\u` and four
 * hex digits: it means the same, and is safe to show.
 */
export function safeJson(json: string): string {
  return json.replace(unsafeInJson, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
