import { describe, expect, it } from 'vitest';
import { ExpressionError, isLiteralTemplate, parseTemplate, templateReferences } from '../../src/workflow/expressions/index.js';

/** The error parseTemplate throws for `text`, which must be an ExpressionError. */
function syntaxError(text: string): ExpressionError {
  try {
    parseTemplate(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    return error as ExpressionError;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('tokenizer errors', () => {
  it.each([
    ['a single "="', 'abc ${{ 1 = 2 }}', 10, /"=="/],
    ['a single "&"', '${{ true & false }}', 9, /"&&"/],
    ['a single "|"', '${{ true | false }}', 9, /"\|\|"/],
    ['an unknown character', '${{ inputs.a + 1 }}', 13, /unexpected character "\+"/],
    ['an unterminated single-quoted string', 'x ${{ \'abc }}', 6, /unterminated string/],
    ['an unterminated double-quoted string', '${{ "abc }}', 4, /unterminated string/],
    ['an unterminated block', 'before ${{ inputs.a ', 7, /unterminated expression/],
    ['an unterminated second block', '${{ 1 }} and ${{ 2', 13, /unterminated expression/],
    ['a block closed by a single brace', '${{ 1 }} and ${{ 2 }', 19, /close the expression with "}}"/],
    ['a lone "}"', '${{ (1 } }}', 7, /"}}"/],
    ['a malformed number', '${{ 12abc }}', 4, /invalid number/],
    ['a number with two dots', '${{ 1.2.3 }}', 4, /invalid number/],
    ['a missing property name', '${{ inputs. }}', 12, /property name/],
  ])('rejects %s at its exact offset', (_name, text, offset, message) => {
    const error = syntaxError(text);
    expect(error.offset).toBe(offset);
    expect(error.message).toMatch(message);
  });

  it('does not end an expression at "}}" inside a string literal', () => {
    expect(isLiteralTemplate(parseTemplate("${{ format('{{0}}}}', 1) }}"))).toBe(false);
  });
});

describe('parser errors', () => {
  it.each([
    ['an empty block', 'a ${{   }}', 8, /empty expression/],
    ['two values in a row', '${{ 1 2 }}', 6, /unexpected number 2/],
    ['a missing operand', '${{ 1 == }}', 9, /expected a value/],
    ['an unclosed parenthesis', '${{ (1 == 1 }}', 12, /"\)"/],
    ['an unclosed index', '${{ inputs[0 }}', 13, /"\]"/],
    ['an unknown function', 'x${{ 1 && tojsn(1) }}', 10, /unknown function "tojsn"/],
    ['an unknown context', '${{ github.sha }}', 4, /unknown context "github"/],
    ['a bare step context', '${{ steps }}', 4, /step id/],
    ['a computed step id', '${{ steps[inputs.which].status }}', 4, /step id/],
    ['an unknown step field', '${{ steps.build.outputs.x }}', 16, /status, output or data/],
    ['an unknown step field by index', "${{ steps.build['result'] }}", 16, /status, output or data/],
    ['a bad literal format string', "${{ format('{x}', 1) }}", 11, /invalid placeholder/],
    ['a lone brace in a literal format string', "${{ format('a}b') }}", 11, /lone "}"/],
    ['a literal format string with too few values', "${{ format('{0} {2}', 1, 2) }}", 11, /refers to \{2\} but is given 2 values/],
  ])('rejects %s at its exact offset', (_name, text, offset, message) => {
    const error = syntaxError(text);
    expect(error.offset).toBe(offset);
    expect(error.message).toMatch(message);
  });

  it.each([
    ['success(1)', /success\(\) takes 0 arguments, got 1/],
    ['always(true)', /always\(\) takes 0 arguments, got 1/],
    ['failure(1, 2)', /failure\(\) takes 0 arguments, got 2/],
    ['cancelled(1)', /cancelled\(\) takes 0 arguments, got 1/],
    ["contains('a')", /contains\(\) takes 2 arguments, got 1/],
    ["startsWith('a', 'b', 'c')", /startsWith\(\) takes 2 arguments, got 3/],
    ["endsWith('a')", /endsWith\(\) takes 2 arguments, got 1/],
    ['format()', /format\(\) takes at least 1 argument, got 0/],
    ['toJSON()', /toJSON\(\) takes 1 argument, got 0/],
    ["fromJSON('1', '2')", /fromJSON\(\) takes 1 argument, got 2/],
  ])('rejects the arity of %s at the function name', (call, message) => {
    const error = syntaxError(`ab \${{ ${call} }}`);
    expect(error.offset).toBe(7);
    expect(error.message).toMatch(message);
  });

  it('accepts function names in any case, as GitHub Actions does', () => {
    expect(() => parseTemplate("${{ toJson(fromjson('1')) }}")).not.toThrow();
  });

  it('accepts step ids that start with a digit or contain dashes', () => {
    expect([...templateReferences(parseTemplate('${{ steps.1-build.status }}')).steps]).toEqual(['1-build']);
  });
});

describe('limits on hostile input', () => {
  const nestedParens = (depth: number) => `\${{ ${'('.repeat(depth)}1${')'.repeat(depth)} }}`;

  it('accepts nesting up to 64 levels', () => {
    expect(() => parseTemplate(nestedParens(64))).not.toThrow();
    expect(() => parseTemplate(`\${{ ${'!'.repeat(64)}true }}`)).not.toThrow();
  });

  it('rejects the 65th level of parentheses, "!", call arguments and indexes', () => {
    expect(syntaxError(nestedParens(65)).message).toMatch(/nested deeper than 64/);
    expect(syntaxError(`\${{ ${'!'.repeat(65)}true }}`).message).toMatch(/nested deeper than 64/);
    expect(syntaxError(`\${{ ${'toJSON('.repeat(65)}1${')'.repeat(65)} }}`).message).toMatch(/nested deeper than 64/);
    expect(syntaxError(`\${{ inputs${'[inputs'.repeat(65)}${']'.repeat(65)} }}`).message).toMatch(/nested deeper than 64/);
  });

  it('rejects very deep nesting without overflowing the stack', () => {
    const error = syntaxError(nestedParens(30_000));
    expect(error.message).toMatch(/nested deeper than 64/);
    expect(error.offset).toBe(4 + 64);
    expect(syntaxError(`\${{ ${'!'.repeat(60_000)}true }}`).message).toMatch(/nested deeper than 64/);
  });

  it('rejects strings with expressions longer than 64 KiB', () => {
    const text = `\${{ 'a' }}${'x'.repeat(64 * 1024)}`;
    expect(syntaxError(text).message).toMatch(/64 KiB/);
  });

  it('keeps long literal strings without expressions', () => {
    const text = 'x'.repeat(200 * 1024);
    expect(isLiteralTemplate(parseTemplate(text))).toBe(true);
  });
});

describe('templateReferences', () => {
  const references = (text: string) => templateReferences(parseTemplate(text));

  it('collects step ids from every position of an expression', () => {
    const found = references(
      "${{ contains(steps.a.output, 'x') }} ${{ inputs[steps.b.data.key] }} ${{ steps['c'].status == 'success' || !steps.d.data }} ${{ fromJSON(steps.e.output)[steps.f.data[0]] }}",
    );
    expect([...found.steps].sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('collects inputs, secrets and env names read by dot or by literal index', () => {
    const found = references("${{ inputs.tag }}-${{ secrets['NPM_TOKEN'] }}-${{ format('{0}', env.MODE) }}-${{ env[inputs.which] }}");
    expect([...found.inputs].sort()).toEqual(['tag', 'which']);
    expect([...found.secrets]).toEqual(['NPM_TOKEN']);
    expect([...found.env]).toEqual(['MODE']);
    expect(found.steps.size).toBe(0);
  });

  it('reports whether a status function is used', () => {
    expect(references("${{ steps.a.status == 'success' }}").statusFunctions).toBe(false);
    for (const name of ['success', 'failure', 'always', 'cancelled']) {
      expect(references(`\${{ inputs.x && ${name}() }}`).statusFunctions).toBe(true);
    }
  });

  it('finds nothing in a literal string', () => {
    const found = references('steps.a.output and inputs.x');
    expect(found.steps.size + found.inputs.size + found.secrets.size + found.env.size).toBe(0);
    expect(found.statusFunctions).toBe(false);
  });
});
