import { ExpressionError as GitHubParseError, Lexer, Parser, wellKnownFunctions, type Expr } from '@actions/expressions';
import { TokenType, type Token } from '@actions/expressions/lexer';
import { ExpressionError } from './errors.js';
import { extensionFunctionInfo, functionList } from './functions.js';

/** One expression parsed by the official parser, with where each of its tokens starts. */
export interface ParsedExpression {
  /** Absent for an expression with no tokens, which evaluates to null. */
  readonly tree: Expr | undefined;
  /** Offset of each token within the expression's source. */
  readonly offsets: ReadonlyMap<Token, number>;
}

/** Characters the lexer skips between tokens. */
const lexerWhitespace = new Set([' ', '\t', '\r', '\n']);

/**
 * Parses the text of one expression (what stands between `${{` and `}}`) with GitHub's lexer
 * and parser. `contexts` are the names it may read. Errors are `ExpressionError`s whose offset
 * is within `source`.
 */
export function parseExpressionSource(source: string, contexts: readonly string[]): ParsedExpression {
  let tokens: Token[];
  try {
    tokens = new Lexer(source).lex().tokens;
  } catch (error) {
    throw lexerError(error as Error, source);
  }
  const offsets = tokenOffsets(source, tokens);
  for (const token of tokens) {
    // The lexer unescapes only the first doubled quote of a string; GitHub Actions' runner unescapes every one.
    if (token.type === TokenType.STRING) token.value = token.lexeme.slice(1, -1).replaceAll("''", "'");
  }
  try {
    return { tree: new Parser(tokens, [...contexts], [...extensionFunctionInfo]).parse(), offsets };
  } catch (error) {
    if (!(error instanceof GitHubParseError)) throw error;
    const token = tokens.find((candidate) => candidate.range.start.line === error.pos.line && candidate.range.start.column === error.pos.column);
    throw new ExpressionError(`${error.message}${parseHint(error.message, contexts)}`, token ? offsets.get(token)! : 0, { cause: error });
  }
}

/**
 * The lexer keeps each token's text, and only whitespace separates tokens, so every token's
 * start is found by skipping whitespace after the previous one.
 */
function tokenOffsets(source: string, tokens: readonly Token[]): Map<Token, number> {
  const offsets = new Map<Token, number>();
  let position = 0;
  for (const token of tokens) {
    while (position < source.length && lexerWhitespace.has(source[position]!)) position += 1;
    offsets.set(token, position);
    position += token.lexeme.length;
  }
  return offsets;
}

const lexerPosition = /^(.*?)\. Located at position (\d+) within expression: /s;

function lexerError(error: Error, source: string): ExpressionError {
  if (error.message === 'ErrorExceededMaxLength') {
    return new ExpressionError('an expression may be at most 21000 characters long (GitHub Actions’ limit)', 0, { cause: error });
  }
  const located = lexerPosition.exec(error.message);
  if (!located) return new ExpressionError(error.message, 0, { cause: error });
  const message = located[1]!;
  const offset = Number(located[2]) - 1;
  const afterDot = source[offset - 1] === '.' && /^\d/.test(source[offset] ?? '');
  const hint = afterDot ? "; a name that starts with a digit is read by index: steps['1-build']" : lexerHint(message);
  return new ExpressionError(`${message}${hint}`, offset, { cause: error });
}

function lexerHint(message: string): string {
  const symbol = /^Unexpected symbol: '(.)/s.exec(message)?.[1];
  if (symbol === '"') return "; strings are written in single quotes: 'text'";
  if (symbol === '=') return '; compare with "=="';
  if (symbol === '&') return '; write "&&"';
  if (symbol === '|') return '; write "||"';
  if (symbol === "'") return "; close the string with ' (write '' for a quote inside it)";
  return '';
}

function parseHint(message: string, contexts: readonly string[]): string {
  const name = /^[^:]*: '(.*)'$/s.exec(message)?.[1] ?? '';
  if (message.startsWith('Unrecognized named-value')) return `; expressions can read ${contexts.join(', ')}`;
  if (message.startsWith('Unrecognized function')) return `; available: ${functionList()}`;
  if (message.startsWith('Too few parameters') || message.startsWith('Too many parameters')) return arity(name);
  return '';
}

function arity(name: string): string {
  const lower = name.toLowerCase();
  const info = wellKnownFunctions[lower] ?? extensionFunctionInfo.find((candidate) => candidate.name === lower);
  if (!info) return '';
  const count = (n: number) => `${n} argument${n === 1 ? '' : 's'}`;
  const takes = info.minArgs === info.maxArgs ? count(info.minArgs) : info.maxArgs > 255 ? `at least ${count(info.minArgs)}` : `${info.minArgs} to ${count(info.maxArgs)}`;
  return `; ${name}() takes ${takes}`;
}
