import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateTemplate, ExpressionError, isLiteralTemplate, parseTemplate, type ExpressionContext } from '../../src/workflow/expressions/index.js';

const emptyContext: ExpressionContext = { inputs: {}, steps: {}, env: {}, secrets: {}, run: { failed: false, cancelled: false } };

describe('expression properties', () => {
  it('a string without "${{" is literal and evaluates to itself', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('$', '{', '}', ' ', 'a', "'", '"', '\n', 'é', '😀') }).filter((text) => !text.includes('${{')),
        (text) => {
          const template = parseTemplate(text);
          expect(isLiteralTemplate(template)).toBe(true);
          expect(evaluateTemplate(template, emptyContext)).toBe(text);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a quoted string literal evaluates to the original text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const literal = `'${text.replaceAll("'", "''")}'`;
        expect(evaluateTemplate(parseTemplate(`\${{ ${literal} }}`), emptyContext)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('integer comparisons agree with JavaScript', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer(), fc.constantFrom('<', '<=', '>', '>=', '==', '!='), (a, b, operator) => {
        const expected = { '<': a < b, '<=': a <= b, '>': a > b, '>=': a >= b, '==': a === b, '!=': a !== b }[operator];
        expect(evaluateTemplate(parseTemplate(`\${{ ${a} ${operator} ${b} }}`), emptyContext)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('parsing arbitrary text either succeeds or throws an ExpressionError inside the text', () => {
    const pieces = ['${{', '}}', ' ', "'", '"', '(', ')', '[', ']', '.', ',', '!', '==', '&&', '||', '<', 'inputs', 'steps', 'a', '1', 'format', 'toJSON'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        try {
          parseTemplate(text);
        } catch (error) {
          expect(error).toBeInstanceOf(ExpressionError);
          expect((error as ExpressionError).offset).toBeGreaterThanOrEqual(0);
          expect((error as ExpressionError).offset).toBeLessThanOrEqual(text.length);
        }
      }),
      { numRuns: 500 },
    );
  });
});
