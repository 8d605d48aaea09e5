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

describe('lexer errors', () => {
  it.each([
    ['a single "="', 'abc ${{ 1 = 2 }}', 10, /Unexpected symbol: '='; compare with "=="/],
    ['a single "&"', '${{ true & false }}', 9, /'&'; write "&&"/],
    ['a single "|"', '${{ true | false }}', 9, /'\|'; write "\|\|"/],
    ['an unknown character', '${{ inputs.a + 1 }}', 13, /Unexpected symbol: '\+'/],
    ['a double-quoted string (GitHub Actions has single-quoted strings only)', '${{ "abc" }}', 4, /single quotes/],
    ['a malformed number', '${{ 12abc }}', 4, /Unexpected symbol: '12abc'/],
    ['a number with two dots', '${{ 1.2.3 }}', 4, /Unexpected symbol: '1.2.3'/],
    ['a property name that starts with a digit', '${{ steps.1-build.status }}', 10, /steps\['1-build'\]/],
  ])('rejects %s at its exact offset', (_name, text, offset, message) => {
    const error = syntaxError(text);
    expect(error.offset).toBe(offset);
    expect(error.message).toMatch(message);
  });

  it('does not end an expression at "}}" inside a string literal', () => {
    expect(isLiteralTemplate(parseTemplate("${{ format('{{0}}}}', 1) }}"))).toBe(false);
  });
});

describe('template errors', () => {
  it.each([
    ['an unterminated block', 'before ${{ inputs.a ', 7],
    ['an unterminated second block', '${{ 1 }} and ${{ 2', 13],
    ['a block closed by a single brace', '${{ 1 }} and ${{ 2 }', 13],
    // As in GitHub Actions, "}}" inside an open string does not close the block.
    ['an unterminated string', "x ${{ 'abc }}", 2],
  ])('rejects %s at its "${{"', (_name, text, offset) => {
    const error = syntaxError(text);
    expect(error.offset).toBe(offset);
    expect(error.message).toMatch(/not closed/);
  });

  it('rejects an empty block', () => {
    const error = syntaxError('a ${{   }}');
    expect(error.offset).toBe(2);
    expect(error.message).toMatch(/an expression was expected/);
  });
});

describe('parser errors', () => {
  it.each([
    ['a lone "}"', '${{ (1 } }}', 7, /Unexpected symbol: '}'/],
    ['two values in a row', '${{ 1 2 }}', 6, /Unexpected symbol: '2'/],
    ['a missing operand', '${{ 1 == }}', 6, /Unexpected end of expression: '=='/],
    ['an unclosed parenthesis', '${{ (1 == 1 }}', 10, /Unexpected end of expression/],
    ['an unclosed index', '${{ inputs[0 }}', 11, /Unexpected symbol: 'EOF'/],
    ['a missing property name', '${{ inputs. }}', 10, /Unexpected symbol: 'EOF'/],
    ['an unknown function', 'x${{ 1 && tojsn(1) }}', 10, /Unrecognized function: 'tojsn'; available: .*rho_trim\(\)/],
    ['an unknown context', '${{ github.sha }}', 4, /Unrecognized named-value: 'github'; expressions can read inputs, steps, env, secrets/],
    ['a bare step context', '${{ steps }}', 4, /step id/],
    ['a computed step id', '${{ steps[inputs.which].status }}', 4, /step id/],
    ['every step at once', '${{ steps.*.status }}', 4, /step id/],
    ['an unknown step field', '${{ steps.build.outputs.x }}', 16, /status, output or data/],
    ['an unknown step field by index', "${{ steps.build['result'] }}", 16, /status, output or data/],
    ['a bad literal format string', "${{ format('{x}', 1) }}", 11, /format string is invalid/],
    ['a lone brace in a literal format string', "${{ format('a}b') }}", 11, /format string is invalid/],
    ['a literal format string with too few values', "${{ format('{0} {2}', 1, 2) }}", 11, /references more arguments than were supplied/],
  ])('rejects %s at its exact offset', (_name, text, offset, message) => {
    const error = syntaxError(text);
    expect(error.offset).toBe(offset);
    expect(error.message).toMatch(message);
  });

  it.each([
    ['success(1)', /Too many parameters supplied: 'success'; success\(\) takes 0 arguments/],
    ['always(true)', /always\(\) takes 0 arguments/],
    ['failure(1, 2)', /failure\(\) takes 0 arguments/],
    ['cancelled(1)', /cancelled\(\) takes 0 arguments/],
    ["contains('a')", /Too few parameters supplied: 'contains'; contains\(\) takes 2 arguments/],
    ["startsWith('a', 'b', 'c')", /startsWith\(\) takes 2 arguments/],
    ["endsWith('a')", /endsWith\(\) takes 2 arguments/],
    ['format()', /format\(\) takes 1 to 255 arguments/],
    ['toJSON()', /toJSON\(\) takes 1 argument/],
    ["fromJSON('1', '2')", /fromJSON\(\) takes 1 argument/],
    ['case(true, 1)', /case\(\) takes at least 3 arguments/],
    ["rho_trim('a', 'b')", /rho_trim\(\) takes 1 argument/],
    ["rho_split('a')", /rho_split\(\) takes 2 arguments/],
    ["rho_replace('a', 'b')", /rho_replace\(\) takes 3 arguments/],
  ])('rejects the arity of %s at the function name', (call, message) => {
    const error = syntaxError(`ab \${{ ${call} }}`);
    expect(error.offset).toBe(7);
    expect(error.message).toMatch(message);
  });

  it('accepts function names in any case, as GitHub Actions does', () => {
    expect(() => parseTemplate("${{ toJson(fromjson('1')) && RHO_TRIM('x') }}")).not.toThrow();
  });

  it('reads step ids that start with a digit by index', () => {
    expect([...templateReferences(parseTemplate("${{ steps['1-build'].status }}")).steps]).toEqual(['1-build']);
  });

  it('reads only the contexts it was given', () => {
    expect(syntaxError('${{ matrix.os }}').message).toMatch(/Unrecognized named-value: 'matrix'/);
    expect(() => parseTemplate('${{ matrix.os }}', { contexts: ['matrix'] })).not.toThrow();
  });
});

describe('limits on hostile input', () => {
  const nestedParens = (depth: number) => `\${{ ${'('.repeat(depth)}1${')'.repeat(depth)} }}`;

  it("accepts nesting up to GitHub Actions' depth of 50", () => {
    expect(() => parseTemplate(nestedParens(49))).not.toThrow();
    expect(() => parseTemplate(`\${{ ${'!'.repeat(49)}true }}`)).not.toThrow();
    expect(() => parseTemplate(`\${{ inputs${'.a'.repeat(49)} }}`)).not.toThrow();
  });

  it('rejects deeper parentheses, "!", call arguments and property chains', () => {
    expect(syntaxError(nestedParens(50)).message).toMatch(/Exceeded max expression depth 50/);
    expect(syntaxError(`\${{ ${'!'.repeat(50)}true }}`).message).toMatch(/Exceeded max expression depth 50/);
    expect(syntaxError(`\${{ ${'toJSON('.repeat(50)}1${')'.repeat(50)} }}`).message).toMatch(/Exceeded max expression depth 50/);
    expect(syntaxError(`\${{ inputs${'.a'.repeat(50)} }}`).message).toMatch(/Exceeded max expression depth 50/);
  });

  it('rejects very deep nesting without overflowing the stack', () => {
    const error = syntaxError(nestedParens(10_000));
    expect(error.message).toMatch(/Exceeded max expression depth 50/);
    expect(error.offset).toBe(4 + 50);
    expect(syntaxError(`\${{ ${'!'.repeat(10_000)}true }}`).message).toMatch(/Exceeded max expression depth 50/);
  });

  it("rejects an expression longer than GitHub Actions' 21,000 characters", () => {
    expect(syntaxError(`\${{ '${'x'.repeat(21_000)}' }}`).message).toMatch(/at most 21000 characters/);
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

  it('reads step ids without regard to case, as GitHub Actions reads properties', () => {
    expect([...references('${{ steps.BUILD.status }}').steps]).toEqual(['build']);
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
