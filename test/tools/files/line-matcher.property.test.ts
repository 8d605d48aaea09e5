import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineMatcher } from '../../../src/tools/files/line-matcher.js';
import { requiredLiteral } from '../../../src/tools/files/required-literal.js';

/** The search's meaning, line by line with no shortcut: what the fast path must agree with. */
function naiveMatches(pattern: RegExp, text: string, limit: number): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  text.split('\n').forEach((line, index) => {
    const candidate = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (found.length < limit && pattern.test(candidate)) found.push({ line: index + 1, text: candidate });
  });
  return found;
}

/** Pieces of regular expressions: literals, escapes, classes, groups, lookarounds, quantifiers, anchors, Annex B oddities. */
const piece = fc.oneof(
  fc.constantFrom('a', 'b', 'ab', 'ba', 'A', 'é', '-', '/', ',', ' ', '1', '\r', '\u2028'),
  fc.constantFrom('\\.', '\\\\', '\\(', '\\*', '\\/', '\\-', '\\d', '\\w', '\\s', '\\b', '\\B', '\\x61', '\\u0062', '\\141', '\\n', '\\r', '\\ca', '\\k<a>', '\\1', '\\q'),
  fc.constantFrom('.', '^', '$', '[ab]', '[^a]', '[]', '[^]', '[\\]a]', '(a|b)', '(?:ab)', '(?=a)', '(?!b)', '(?<=a)', '(?<!b)', '(?<n>a)'),
  fc.constantFrom('*', '+', '?', '{2}', '{0,1}', '{1,}', '*?', '+?', '{', '}', ']', '{,2}', '{a}'),
);
const patternSource = fc.array(piece, { minLength: 1, maxLength: 8 }).map((pieces) => pieces.join(''));
const compiled = fc
  .tuple(patternSource, fc.boolean())
  .map(([source, ignoreCase]) => {
    try {
      return new RegExp(source, ignoreCase ? 'i' : '');
    } catch {
      return undefined;
    }
  })
  .filter((pattern): pattern is RegExp => pattern !== undefined);
const text = fc
  .array(fc.constantFrom('a', 'b', 'A', 'B', 'ab', 'é', 'É', '1', '-', ',', '/', ' ', '\n', '\r\n', '\r', '\u2028', '.', 'a\nb'), { maxLength: 30 })
  .map((parts) => parts.join(''));

describe('line matching with the required-literal shortcut', () => {
  it('finds exactly the lines a plain line-by-line test finds, in one file and across a batch', () => {
    fc.assert(
      fc.property(compiled, fc.array(text, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 6 }), (pattern, texts, limit) => {
        const matcher = new LineMatcher(pattern, 1000);
        const batch = matcher.matchAll(
          texts.map((value, index) => ({ text: value, shown: `f${index}` })),
          limit,
        );
        let remaining = limit;
        texts.forEach((value, index) => {
          const expected = naiveMatches(pattern, value, remaining);
          remaining -= expected.length;
          expect(batch[index]).toEqual(expected);
          expect(matcher.matches(value, limit, 'one')).toEqual(naiveMatches(pattern, value, limit));
          if (!matcher.mayMatch(Buffer.from(value))) expect(naiveMatches(pattern, value, 1)).toEqual([]);
        });
      }),
      { numRuns: 3000 },
    );
  });

  it('every literal it requires occurs in every string the pattern matches', () => {
    fc.assert(
      fc.property(compiled, text, (pattern, value) => {
        const literal = requiredLiteral(pattern);
        const match = pattern.exec(value);
        if (literal === undefined || match === null) return;
        const literalPattern = new RegExp(literal.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'), pattern.flags);
        expect(literalPattern.test(match[0])).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads the literal of common patterns and gives up on alternations', () => {
    expect(requiredLiteral(/needle/)).toBe('needle');
    expect(requiredLiteral(/\bfunction\s+(\w+)\(/)).toBe('function');
    expect(requiredLiteral(/ab*c/)).toBe('a');
    expect(requiredLiteral(/a\.b/)).toBe('a.b');
    expect(requiredLiteral(/\x41BC/)).toBe('BC');
    expect(requiredLiteral(/a|b/)).toBeUndefined();
    expect(requiredLiteral(/x/u)).toBeUndefined();
  });
});

describe('a batch with a pattern that backtracks', () => {
  it('names the file it stalls on, searched alone, and keeps nothing of the batch', () => {
    const matcher = new LineMatcher(/^(a+)+$/, 200);
    const evil = `${'a'.repeat(32)}!`;
    expect(() =>
      matcher.matchAll(
        [
          { text: 'aaa\n', shown: 'fine.txt' },
          { text: evil, shown: 'evil.txt' },
        ],
        10,
      ),
    ).toThrow(/longer than 200 ms on evil\.txt/);
  });

  it('stops at the limit before reaching it', () => {
    const matcher = new LineMatcher(/^(a+)+$/, 200);
    const found = matcher.matchAll(
      [
        { text: 'aaa\naa\n', shown: 'fine.txt' },
        { text: `${'a'.repeat(32)}!`, shown: 'evil.txt' },
      ],
      2,
    );
    expect(found).toEqual([
      [
        { line: 1, text: 'aaa' },
        { line: 2, text: 'aa' },
      ],
      [],
    ]);
  });
});
