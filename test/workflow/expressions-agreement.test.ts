import { data } from '@actions/expressions';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateExpressionSource, ExpressionError, type ExpressionContext } from '../../src/workflow/expressions/index.js';
import { expression, tokenSoup } from './expression-grammar.js';
import { githubEvaluate } from './github-evaluator.js';

/**
 * rho's expressions against `@actions/expressions` used on its own (its lexer, parser and
 * evaluator, no contexts, no extra functions), on expressions that read no context: a table of
 * cases with the result GitHub Actions gives, and random expressions from a small grammar.
 * Results are compared as a canonical text that tells NaN, Infinity and -0 apart and keeps the
 * order of an object's keys; failures are compared as failures, since rho's messages add hints.
 */

const emptyContext: ExpressionContext = { inputs: {}, steps: {}, env: {}, secrets: {}, run: { failed: false, cancelled: false } };

/** The canonical text of a failure. */
const failure = 'fails';

function showNumber(value: number): string {
  return `number ${Object.is(value, -0) ? '-0' : String(value)}`;
}

/** A JavaScript value (rho's result, or an expected one) as canonical text. */
function show(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return showNumber(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, element]) => `${JSON.stringify(key)}: ${show(element)}`)
      .join(', ')}}`;
  throw new Error(`not an expression value: ${String(value)}`);
}

/** An `@actions/expressions` value as the same canonical text. */
function showData(value: data.ExpressionData): string {
  switch (value.kind) {
    case data.Kind.Null:
      return 'null';
    case data.Kind.Boolean:
      return String(value.value);
    case data.Kind.Number:
      return showNumber(value.value);
    case data.Kind.String:
      return JSON.stringify(value.value);
    case data.Kind.Array:
      return `[${value.values().map(showData).join(', ')}]`;
    default:
      return `{${(value as data.Dictionary)
        .pairs()
        .map(({ key, value: element }) => `${JSON.stringify(key)}: ${showData(element)}`)
        .join(', ')}}`;
  }
}

/** What GitHub's package alone makes of an expression. */
function github(source: string): string {
  try {
    return showData(githubEvaluate(source));
  } catch {
    return failure;
  }
}

/** What rho makes of it; anything thrown but an `ExpressionError` is a crash and fails the test. */
function rho(source: string): string {
  try {
    return show(evaluateExpressionSource(source, emptyContext));
  } catch (error) {
    if (error instanceof ExpressionError) return failure;
    throw error;
  }
}

const fails = Symbol('fails');
const expected = (value: unknown): string => (value === fails ? failure : show(value));

/** [expression, the result GitHub Actions gives] — rho and `@actions/expressions` must both give it. */
const cases: [string, unknown][] = [
  // NaN and Infinity are literals, and NaN equals nothing.
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['-Infinity', Number.NEGATIVE_INFINITY],
  ['NaN == NaN', false],
  ['NaN != NaN', true],
  ['Infinity > 1e308', true],
  ['1e400 == Infinity', true],
  ['nan', fails],
  // Number forms.
  ['.5', 0.5],
  ['-.5', -0.5],
  ['1.', 1],
  ['+7', 7],
  ['007', 7],
  ['-0', -0],
  ['0o7', 7],
  ['0O17', 15],
  ['0b11', 3],
  ['0x1F', 31],
  ['0xff == 255', true],
  ['1e3', 1000],
  ['2.5E-2', 0.025],
  ['0x', fails],
  ['1.2.3', fails],
  ['12abc', fails],
  ['1_000', fails],
  // Property names are case-insensitive; the first of two keys that differ in case wins.
  [`fromJSON('{"a":1}').A`, 1],
  [`fromJSON('{"Key":1}')['KEY']`, 1],
  [`fromJSON('{"a":1,"A":2}').a`, 1],
  [`fromJSON('{"a":1,"A":2}')`, { a: 1 }],
  [`fromJSON('{"a":1}').b`, null],
  // fromJSON() reads objects as JavaScript does: keys that are array indexes first.
  [`fromJSON('{"b":1,"1":2,"a":3}')`, { 1: 2, b: 1, a: 3 }],
  [`toJSON(fromJSON('{"b":1,"1":2}'))`, '{\n  "1": 2,\n  "b": 1\n}'],
  [`fromJSON('{"a":{"b":[10,20]}}').A.B[1]`, 20],
  [`fromJSON('{"x-y":1}').x-y`, 1],
  // Array indexes: numbers rounded down, numeric strings, anything else is nothing.
  [`fromJSON('[1,2]')[0.5]`, 1],
  [`fromJSON('[1,2]')[1.9]`, 2],
  [`fromJSON('[1,2]')['1']`, 2],
  [`fromJSON('[1,2]')[' 1 ']`, 2],
  [`fromJSON('[1,2]')['0x1']`, 2],
  [`fromJSON('[1,2]')[2]`, null],
  [`fromJSON('[1,2]')[-1]`, null],
  [`fromJSON('[1,2]')['a']`, null],
  [`fromJSON('[1,2]')[NaN]`, null],
  [`fromJSON('[1,2]').a`, null],
  [`('abc')[0]`, null],
  // "*" filters.
  [`fromJSON('[{"a":1},{"a":2},{"b":3}]').*.a`, [1, 2]],
  [`fromJSON('{"x":1,"y":[2]}').*`, [1, [2]]],
  [`fromJSON('[[1,2],[3]]')[*][0]`, [1, 3]],
  [`fromJSON('[{"a":1},{"a":2}]').*.a[0]`, []],
  // Arrays and objects in text: GitHub writes "Array" and "Object"; only text is searched or joined on.
  [`format('{0}|{1}|{2}', fromJSON('[1]'), fromJSON('{}'), null)`, 'Array|Object|'],
  [`format('{0} {0}', 1.50)`, '1.5 1.5'],
  [`format('{{0}} {{{0}}}', 'x')`, '{0} {x}'],
  [`format('{0}', 0.1 )`, '0.1'],
  [`format('{0}', 123456789012345678)`, '123456789012345680'],
  [`format('{0}', true)`, 'true'],
  [`format('{1}', 'a')`, fails],
  [`format('{0')`, fails],
  [`format('x}')`, fails],
  [`format(1, 2)`, '1'],
  [`contains(fromJSON('[1,2]'), 2)`, true],
  [`contains(fromJSON('[1,2]'), '2')`, true],
  [`contains(fromJSON('["a"]'), 'A')`, true],
  [`contains(fromJSON('[[1]]'), fromJSON('[1]'))`, false],
  [`contains(fromJSON('{"a":1}'), 'a')`, false],
  [`contains(fromJSON('{"a":1}'), 'bj')`, false],
  [`contains('abc', 'B')`, true],
  [`contains(123, 2)`, true],
  [`contains(null, '')`, true],
  [`startsWith('Hello', 'he')`, true],
  [`endsWith(fromJSON('[1,2]'), 'ray')`, false],
  [`join(fromJSON('[1,"a",null,true,1.50]'))`, '1,a,,true,1.5'],
  [`join(fromJSON('[[1],{}]'), ' + ')`, 'Array + Object'],
  [`join(fromJSON('[]'))`, ''],
  [`join('abc', '-')`, 'abc'],
  [`join(fromJSON('{"a":1}'))`, ''],
  [`join(fromJSON('[1,2]'), fromJSON('[0]'))`, '1,2'],
  // case(): the value of the first true predicate, else the last argument.
  [`case(true, 'a', 'b')`, 'a'],
  [`case(false, 'a', 1 == 1, 'b', 'c')`, 'b'],
  [`case(false, 'a', false, 'b', 'c')`, 'c'],
  [`CASE(1 < 2, fromJSON('[1]'), null)`, [1]],
  [`case(1, 'a', 'b')`, fails],
  [`case(true, 'a')`, fails],
  // Loose equality.
  [`'1' == 1`, true],
  [`'' == 0`, true],
  [`' 1 ' == 1`, true],
  [`'0x10' == 16`, true],
  [`'abc' == 'ABC'`, true],
  [`'abc' == 0`, false],
  [`'true' == true`, false],
  [`true == 1`, true],
  [`null == 0`, true],
  [`null == false`, true],
  [`null == ''`, true],
  [`fromJSON('[]') == fromJSON('[]')`, false],
  [`fromJSON('[]') == 'Array'`, false],
  [`-0 == 0`, true],
  // Ordering.
  [`'a' < 'B'`, true],
  [`'10' < 9`, false],
  [`'10' < '9'`, true],
  [`null < 1`, true],
  [`'abc' < 1`, false],
  [`'abc' >= 1`, false],
  [`true > false`, true],
  [`1 < 2 < 3`, true],
  [`3 > 2 > 1`, false],
  [`fromJSON('[]') < 1`, false],
  // && and || return an operand, not a boolean.
  [`1 && 'x'`, 'x'],
  [`0 && 'x'`, 0],
  [`'' || 'y'`, 'y'],
  [`null || 0`, 0],
  [`fromJSON('[]') || 1`, []],
  [`NaN || 'n'`, 'n'],
  [`!fromJSON('{}')`, false],
  [`!''`, true],
  [`1 || 2 && 0`, 1],
  [`(1 || 2) && 0`, 0],
  [`!1 == false`, true],
  // toJSON and fromJSON.
  [`toJSON(fromJSON('{"a":[1,true,null],"b":"x"}'))`, '{\n  "a": [\n    1,\n    true,\n    null\n  ],\n  "b": "x"\n}'],
  [`toJSON('it''s')`, `"it's"`],
  [`toJSON(1.5)`, '1.5'],
  [`toJSON(null)`, 'null'],
  [`toJSON(fromJSON('[]'))`, '[]'],
  [`fromJSON(toJSON(fromJSON('{"a":[1,{"b":null}]}'))).a[1]`, { b: null }],
  [`fromJSON(toJSON('x'))`, 'x'],
  [`fromJSON('1e2')`, 100],
  [`fromJSON(' true ')`, true],
  [`fromJSON('')`, fails],
  [`fromJSON('{')`, fails],
  [`fromJSON('{"a":1,}')`, fails],
  // Strings: single quotes, '' for a quote.
  [`'it''s'`, "it's"],
  [`''''`, "'"],
  [`''`, ''],
  [`'a''b' == 'A''B'`, true],
  [`'\\n'`, '\\n'],
  // Syntax errors; only names, calls and parentheses can be indexed.
  ['', null],
  ['1 +', fails],
  ['(1', fails],
  ['1)', fails],
  ['1 = 1', fails],
  ['1 & 1', fails],
  ['"x"', fails],
  [`'open`, fails],
  ['1 2', fails],
  ['[1]', fails],
  ['!', fails],
  ['&& 1', fails],
  ['fromJSON()', fails],
  [`contains('a')`, fails],
  [`toJSON(1, 2)`, fails],
  ['unknown(1)', fails],
  ['github.sha', fails],
  [`fromJSON('{}').`, fails],
  [`fromJSON('{}').1`, fails],
  [`'abc'[0]`, fails],
  [`'a'.b`, fails],
  [`(${'('.repeat(60)}1${')'.repeat(60)})`, fails],
  [`'${'x'.repeat(21_001)}'`, fails],
];

/**
 * Where rho deliberately differs (each listed in docs/expressions.md): [expression, rho's result,
 * the result of `@actions/expressions` 0.3.61].
 */
const differences: [string, unknown, unknown][] = [
  // rho unescapes every '' in a string, as GitHub Actions' runner does; the package only the first.
  [`'a''b''c'`, "a'b'c", "a'b''c"],
  [`''''''`, "''", "'''"],
  // A literal format string is checked before running, even where it is never evaluated.
  [`false && format('{1}')`, fails, false],
  [`true || format('{x}', 1)`, fails, true],
  // The status functions are rho's to answer, in any expression.
  ['always()', true, fails],
  ['success() && !failure() && !cancelled()', true, fails],
];

describe('agreement with @actions/expressions', () => {
  const named = cases.map(([source, result]) => [source.length > 80 ? `${source.slice(0, 40)}… (${source.length} characters)` : source, source, result] as const);

  it.each(named)('%s', (_name, source, result) => {
    expect({ rho: rho(source), github: github(source) }).toEqual({ rho: expected(result), github: expected(result) });
  });

  it.each(differences)('deliberately differs on %s', (source, rhoResult, githubResult) => {
    expect({ rho: rho(source), github: github(source) }).toEqual({ rho: expected(rhoResult), github: expected(githubResult) });
  });

  it('agrees on every generated expression', () => {
    fc.assert(
      fc.property(expression, ({ source, invalidLiteralFormat }) => {
        // rho refuses an invalid literal format string wherever it is; GitHub only when evaluated.
        if (invalidLiteralFormat) expect(rho(source)).toBe(failure);
        else expect(rho(source)).toBe(github(source));
      }),
      { seed: 16, numRuns: 4000 },
    );
  });

  it('agrees on every run of tokens, valid or not', () => {
    fc.assert(
      fc.property(tokenSoup, (source) => {
        expect(rho(source)).toBe(github(source));
      }),
      { seed: 16, numRuns: 3000 },
    );
  });
});
