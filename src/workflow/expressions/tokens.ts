import { ExpressionError } from './errors.js';

export type SymbolText = '==' | '!=' | '<=' | '>=' | '&&' | '||' | '<' | '>' | '!' | '.' | '[' | ']' | '(' | ')' | ',';

/** One lexical unit of an expression; `offset` is its start within the whole template string. */
export type Token =
  | { kind: 'literal'; value: null | boolean | number | string; offset: number }
  | { kind: 'identifier'; name: string; offset: number }
  | { kind: 'symbol'; text: SymbolText; offset: number }
  /** The closing `}}` of the `${{ … }}` block. */
  | { kind: 'end'; offset: number };

/** A token and the offset just past it. */
interface Scanned {
  token: Token;
  end: number;
}

const twoCharSymbols: readonly SymbolText[] = ['==', '!=', '<=', '>=', '&&', '||'];
const oneCharSymbols: readonly SymbolText[] = ['<', '>', '!', '.', '[', ']', '(', ')', ','];
const keywords: ReadonlyMap<string, null | boolean> = new Map([
  ['null', null],
  ['true', true],
  ['false', false],
]);

const identifierPattern = /[A-Za-z_][A-Za-z0-9_-]*/y;
/** Property names after `.` may start with a digit: step ids such as `1-build` are valid. */
const propertyNamePattern = /[A-Za-z0-9_][A-Za-z0-9_-]*/y;
const numberPattern = /(-?)(?:0[xX]([0-9a-fA-F]+)|(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?))/y;
const numberFollowerPattern = /[A-Za-z0-9_.]/;
const whitespacePattern = /[ \t\r\n]/;

/**
 * Splits the expression that starts at `start` (just after `${{`, which sits at `open`) into
 * tokens, up to and including the closing `}}`. Returns the tokens and the offset just past `}}`.
 */
export function tokenizeExpression(text: string, start: number, open: number): { tokens: Token[]; end: number } {
  const tokens: Token[] = [];
  let position = start;
  for (;;) {
    while (position < text.length && whitespacePattern.test(text[position]!)) position += 1;
    if (position >= text.length) {
      throw new ExpressionError('unterminated expression: "${{" has no closing "}}"', open);
    }
    const previous = tokens.at(-1);
    const afterDot = previous?.kind === 'symbol' && previous.text === '.';
    const { token, end } = afterDot ? scanPropertyName(text, position) : scanToken(text, position);
    tokens.push(token);
    if (token.kind === 'end') return { tokens, end };
    position = end;
  }
}

function scanToken(text: string, position: number): Scanned {
  const char = text[position]!;
  if (char === '}') {
    if (text[position + 1] === '}') return { token: { kind: 'end', offset: position }, end: position + 2 };
    throw new ExpressionError('unexpected "}": close the expression with "}}"', position);
  }
  if (char === "'" || char === '"') return scanString(text, position);
  if (isDigit(char) || (char === '-' && isDigit(text[position + 1]))) return scanNumber(text, position);
  const identifier = matchAt(identifierPattern, text, position);
  if (identifier !== undefined) {
    const token: Token = keywords.has(identifier)
      ? { kind: 'literal', value: keywords.get(identifier)!, offset: position }
      : { kind: 'identifier', name: identifier, offset: position };
    return { token, end: position + identifier.length };
  }
  const symbol =
    twoCharSymbols.find((candidate) => text.startsWith(candidate, position)) ??
    oneCharSymbols.find((candidate) => text.startsWith(candidate, position));
  if (symbol !== undefined) return { token: { kind: 'symbol', text: symbol, offset: position }, end: position + symbol.length };
  throw new ExpressionError(`unexpected character ${JSON.stringify(char)}${hintFor(char)}`, position);
}

function hintFor(char: string): string {
  if (char === '=') return '; compare with "=="';
  if (char === '&') return '; write "&&"';
  if (char === '|') return '; write "||"';
  return '';
}

function scanPropertyName(text: string, position: number): Scanned {
  const name = matchAt(propertyNamePattern, text, position);
  if (name === undefined) throw new ExpressionError('expected a property name after "."', position);
  return { token: { kind: 'identifier', name, offset: position }, end: position + name.length };
}

/** Decimal (`12`, `-1.5`, `2e3`) or hexadecimal (`0xff`) numbers, as GitHub Actions accepts. */
function scanNumber(text: string, position: number): Scanned {
  numberPattern.lastIndex = position;
  const match = numberPattern.exec(text)!;
  const end = position + match[0].length;
  const next = text[end];
  if (next !== undefined && numberFollowerPattern.test(next)) {
    throw new ExpressionError(`invalid number "${match[0]}${next}"`, position);
  }
  const magnitude = match[2] !== undefined ? Number.parseInt(match[2], 16) : Number(match[3]);
  return { token: { kind: 'literal', value: match[1] === '-' ? -magnitude : magnitude, offset: position }, end };
}

/** A quoted string; the quote character is escaped by doubling it (`'it''s'`), as in GitHub Actions. */
function scanString(text: string, position: number): Scanned {
  const quote = text[position]!;
  let value = '';
  let cursor = position + 1;
  for (;;) {
    const close = text.indexOf(quote, cursor);
    if (close < 0) {
      throw new ExpressionError(`unterminated string: close it with ${quote} (write ${quote}${quote} for a ${quote} inside)`, position);
    }
    value += text.slice(cursor, close);
    if (text[close + 1] !== quote) return { token: { kind: 'literal', value, offset: position }, end: close + 1 };
    value += quote;
    cursor = close + 2;
  }
}

function matchAt(pattern: RegExp, text: string, position: number): string | undefined {
  pattern.lastIndex = position;
  return pattern.exec(text)?.[0];
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= '0' && char <= '9';
}
