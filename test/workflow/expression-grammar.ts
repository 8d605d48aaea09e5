import { Lexer } from '@actions/expressions';
import { TokenType } from '@actions/expressions/lexer';
import fc from 'fast-check';
import { githubEvaluate } from './github-evaluator.js';

/**
 * Random context-free expressions for the agreement test: every kind of literal, every
 * operator, parentheses, property and index access, `*` filters and GitHub's functions with
 * names in any case.
 *
 * String literals hold at most one `''`: `@actions/expressions` 0.3.61 unescapes only the first
 * one of a string, which rho deliberately does not copy (docs/expressions.md lists it).
 */
export interface GeneratedExpression {
  readonly source: string;
  /**
   * Whether it calls `format()` with a literal format string that GitHub's `format()` refuses:
   * rho reports that before evaluating, so it fails even where GitHub never evaluates the call.
   */
  readonly invalidLiteralFormat: boolean;
}

const leaf = (source: string): GeneratedExpression => ({ source, invalidLiteralFormat: false });

function combine(parts: readonly GeneratedExpression[], write: (...sources: string[]) => string): GeneratedExpression {
  return { source: write(...parts.map((part) => part.source)), invalidLiteralFormat: parts.some((part) => part.invalidLiteralFormat) };
}

/** A function name in the case it is usually written, in lower case or in upper case. */
const named = (name: string): fc.Arbitrary<string> => fc.constantFrom(name, name.toLowerCase(), name.toUpperCase());

const numberLiteral = fc.oneof(
  fc.constantFrom('0', '-0', '1', '-1', '+3', '007', '.5', '-.5', '1.5', '1.', '1e3', '2E-2', '1e400', '0x1F', '0xff', '0o17', '0b101', 'NaN', 'Infinity', '-Infinity'),
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
);

/** Text that coerces in interesting ways: numbers in every form, words, padding, braces. */
const stringValue = fc.oneof(
  fc.constantFrom('', ' ', '0', '1', ' 1 ', '-0', '.5', '1e2', '0x1F', '0o17', '0b11', 'NaN', 'Infinity', 'true', 'false', 'null', 'abc', 'ABC', 'Array', 'Object'),
  fc.string({ unit: fc.constantFrom('a', 'B', 'c', ' ', '1', '0', '.', '-', 'e', 'x', ',', '{', '}', 'é'), maxLength: 6 }),
);

const stringLiteral = fc.tuple(stringValue, fc.boolean(), stringValue).map(([before, quoted, after]) => (quoted ? `'${before}''${after}'` : `'${before}'`));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Small JSON values; keys that differ only in case, and a numeric key, on purpose. */
const { json } = fc.letrec<{ json: Json }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.constantFrom(null, true, false, 0, -1, 1.5, 1e21, '', 'a', 'A', '1', 'x y'),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('a', 'A', 'b', 'B', '1', 'x y'), tie('json'), { maxKeys: 4 }),
  ),
}));

/** `fromJSON('…')`: the only way to write an array or an object without a context. */
const jsonLiteral = fc.tuple(named('fromJSON'), json).map(([name, value]) => `${name}('${JSON.stringify(value)}')`);

const atom = fc.oneof(fc.constantFrom('null', 'true', 'false'), numberLiteral, stringLiteral, jsonLiteral).map(leaf);

const formatStrings = ['', 'x', '{0}', '{0}-{1}', '{1}{0}', '{0}{0}', '{{0}}', '{{{0}}}', '{', '}', '{0', '0}', '{a}', '{-1}', '{2}', '{ 0}'];

/**
 * Whether `format` is a string literal (one token, as rho's validation sees it) that GitHub's own
 * `format()` refuses with `count` more arguments.
 */
function isRefusedLiteralFormat(format: string, count: number): boolean {
  const tokens = new Lexer(format).lex().tokens;
  if (tokens.length !== 2 || tokens[0]!.type !== TokenType.STRING) return false;
  try {
    githubEvaluate(`format(${format}${', null'.repeat(count)})`);
    return false;
  } catch {
    return true;
  }
}

const operators = ['==', '!=', '<', '<=', '>', '>=', '&&', '||'] as const;

export const { expression } = fc.letrec<{ expression: GeneratedExpression; predicate: GeneratedExpression; accessor: GeneratedExpression; call: GeneratedExpression }>((tie) => ({
  expression: fc.oneof(
    { depthSize: 'small', maxDepth: 4, withCrossShrink: true },
    atom,
    tie('expression').map((operand) => combine([operand], (source) => `!${source}`)),
    fc.tuple(tie('expression'), fc.constantFrom(...operators), tie('expression')).map(([left, operator, right]) => combine([left, right], (a, b) => `${a} ${operator} ${b}`)),
    tie('expression').map((inner) => combine([inner], (source) => `(${source})`)),
    fc.tuple(tie('expression'), tie('accessor')).map(([object, accessor]) => combine([object, accessor], (a, b) => `(${a})${b}`)),
    fc.tuple(jsonLiteral, tie('accessor')).map(([object, accessor]) => combine([leaf(object), accessor], (a, b) => `${a}${b}`)),
    tie('call'),
  ),
  /** Mostly booleans, as `case()` wants, but not always. */
  predicate: fc.oneof(
    fc
      .tuple(tie('expression'), fc.constantFrom(...operators.slice(0, 6)), tie('expression'))
      .map(([left, operator, right]) => combine([left, right], (a, b) => `${a} ${operator} ${b}`)),
    tie('expression'),
  ),
  accessor: fc.oneof(
    fc.constantFrom('.a', '.A', '.b', '.x-y', '.*', '[*]', "['a']", "['B']", "['1']", '[0]', '[1]', '[0.5]', '[1.9]', '[-1]', '[NaN]', '[true]', '[null]').map(leaf),
    tie('expression').map((index) => combine([index], (source) => `[${source}]`)),
  ),
  call: fc.oneof(
    fc
      .tuple(fc.oneof(named('contains'), named('startsWith'), named('endsWith')), tie('expression'), tie('expression'))
      .map(([name, a, b]) => combine([a, b], (x, y) => `${name}(${x}, ${y})`)),
    fc
      .tuple(
        named('format'),
        fc.oneof(
          fc.constantFrom(...formatStrings).map((format) => leaf(`'${format}'`)),
          tie('expression'),
        ),
        fc.array(tie('expression'), { maxLength: 3 }),
      )
      .map(([name, format, args]) => {
        const call = combine([format, ...args], (...sources) => `${name}(${sources.join(', ')})`);
        return { ...call, invalidLiteralFormat: call.invalidLiteralFormat || isRefusedLiteralFormat(format.source, args.length) };
      }),
    fc.tuple(named('join'), tie('expression')).map(([name, value]) => combine([value], (v) => `${name}(${v})`)),
    fc.tuple(named('join'), tie('expression'), tie('expression')).map(([name, value, separator]) => combine([value, separator], (v, s) => `${name}(${v}, ${s})`)),
    fc.tuple(named('toJSON'), tie('expression')).map(([name, value]) => combine([value], (v) => `${name}(${v})`)),
    fc.tuple(named('fromJSON'), tie('expression')).map(([name, value]) => combine([value], (v) => `${name}(${v})`)),
    fc.tuple(named('fromJSON'), named('toJSON'), tie('expression')).map(([from, to, value]) => combine([value], (v) => `${from}(${to}(${v}))`)),
    fc.tuple(named('case'), tie('predicate'), tie('expression'), tie('expression')).map(([name, ...args]) => combine(args, (...sources) => `${name}(${sources.join(', ')})`)),
    fc
      .tuple(named('case'), tie('predicate'), tie('expression'), tie('predicate'), tie('expression'), tie('expression'))
      .map(([name, ...args]) => combine(args, (...sources) => `${name}(${sources.join(', ')})`)),
  ),
}));

/**
 * Tokens, valid and not, for expressions that are mostly syntax errors. Joined with spaces, so
 * no two string tokens run together into one string with several `''`.
 */
export const tokenSoup = fc
  .array(
    fc.constantFrom(
      '(',
      ')',
      '[',
      ']',
      ',',
      '.',
      '!',
      '==',
      '!=',
      '<',
      '<=',
      '>',
      '>=',
      '&&',
      '||',
      '*',
      '=',
      '&',
      '|',
      '+',
      '-',
      '#',
      '{',
      '}',
      '"a"',
      '1',
      '.5',
      '0x',
      '0x1g',
      '1.2.3',
      '12abc',
      '1e',
      "'a'",
      "''",
      "'1'",
      'true',
      'null',
      'NaN',
      'Infinity',
      'abc',
      'a-b',
      '_x',
      'fromJSON',
      'toJSON',
      'contains',
      'join',
      'case',
      'format',
      'startsWith',
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((tokens) => tokens.join(' '));
