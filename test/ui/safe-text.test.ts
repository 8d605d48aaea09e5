import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printable, safeJson, safeText } from '../../src/ui/safe-text.js';

/** Everything a terminal could act on, save line feeds and tabs, and the one sequence that may pass. */
const actsOnTerminal = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
const colourCode = /\u001b\[[0-9;:]*m/g;

const hostile = [
  'NUL\u0000 BEL\u0007 BS\u0008 VT\u000b FF\u000c SO\u000e SI\u000f DEL\u007f',
  '\u001b]0;window title\u0007',
  '\u001b]52;c;cm0gLXJmIH4=\u0007',
  '\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\',
  '\u001bP+q544e\u001b\\',
  'up\u001b[1A\u001b[2K\u001b[Hhome\u001b[2J',
  '\u009b31mC1 CSI\u009d0;title\u009c',
  'safe\u202edisguised\u2066',
  'shown\roverwritten',
];

describe('safe text', () => {
  it('writes out every control character and escape sequence, keeping colour codes only where colours show', () => {
    const text = `plain \u001b[31mred\u001b[0m ${hostile.join(' ')}`;
    const shown = safeText(text, true);
    expect(shown.replace(colourCode, '')).not.toMatch(actsOnTerminal);
    expect(shown).toContain('\u001b[31mred\u001b[0m');
    expect(shown).toContain('\\e]0;window title\\u{7}');
    expect(shown).toContain('\\e]52;c;cm0gLXJmIH4=\\u{7}');
    expect(shown).toContain('\\e]8;;https://evil.example\\e\\click');
    expect(shown).toContain('\\u{9b}31mC1 CSI\\u{9d}0;title\\u{9c}');
    expect(shown).toContain('safe\\u{202e}disguised\\u{2066}');
    expect(safeText(text, false)).not.toMatch(actsOnTerminal);
    expect(safeText(text, false)).toContain(' red ');
  });

  it('keeps line feeds and tabs, and makes a carriage return a line break, so nothing is overwritten', () => {
    expect(safeText('a\tb\nshown\roverwritten\r\nnext', false)).toBe('a\tb\nshown\noverwritten\nnext');
  });

  it('resets colours at the end of a line that set one, so none spills into the next', () => {
    expect(safeText('\u001b[31mred\nplain\n', true)).toBe('\u001b[31mred\u001b[0m\nplain\n');
  });

  it('leaves safe text as it is, and is stable when applied again', () => {
    expect(safeText('nothing to see here: €, 漢字, emoji 😀\n', true)).toBe('nothing to see here: €, 漢字, emoji 😀\n');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.boolean(), (text, colours) => {
        const shown = safeText(text, colours);
        expect(shown.replace(colours ? colourCode : /$^/g, '')).not.toMatch(actsOnTerminal);
        expect(safeText(shown, colours).replace(/\u001b\[0m/g, '')).toBe(shown.replace(/\u001b\[0m/g, ''));
      }),
    );
  });

  it('writes a line as one line of text (a title, a cell, a prompt)', () => {
    expect(printable('tab\there\nnext\u001b[31m')).toBe('tab\\there\\nnext\\e[31m');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(printable(text)).not.toMatch(/[\n\t\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/);
      }),
    );
  });

  it('writes JSON that means the same and holds no character that acts on a terminal', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const json = safeJson(JSON.stringify({ text }));
        expect(json).not.toMatch(actsOnTerminal);
        expect((JSON.parse(json) as { text: string }).text).toBe(text);
      }),
    );
  });
});
