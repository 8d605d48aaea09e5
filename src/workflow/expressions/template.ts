import { data } from '@actions/expressions';
import { Literal } from '@actions/expressions/ast';
import { analyzeExpression, emptyReads, type ExpressionReads } from './analysis.js';
import { coreContextNames } from './context.js';
import { ExpressionError } from './errors.js';
import { parseExpressionSource, type ParsedExpression } from './parse.js';

/** Largest string, in UTF-8 bytes, that may hold expressions. */
const maxTemplateBytes = 64 * 1024;

export interface ExpressionPart {
  kind: 'expression';
  expression: ParsedExpression;
  /** Where the expression's source (trimmed) starts within the template. */
  offset: number;
}

export type TemplatePart = { kind: 'text'; text: string } | ExpressionPart;

/** The parsed form of one string value: literal text and `${{ … }}` expressions, in order. */
export interface Template {
  readonly source: string;
  readonly parts: readonly TemplatePart[];
  /** The contexts its expressions may read. */
  readonly contexts: readonly string[];
  readonly reads: ExpressionReads;
}

export interface ParseOptions {
  /** Contexts beyond inputs, steps, env and secrets that expressions may read (`matrix`). */
  contexts?: readonly string[];
}

const open = '${{';

/**
 * Parses a string value as GitHub Actions does: a `${{` opens an expression that the next
 * `}}` outside a single-quoted string closes. Strings without `${{` are literal whatever their
 * size; strings with expressions are limited to 64 KiB so hostile input cannot make parsing
 * expensive.
 */
export function parseTemplate(text: string, options: ParseOptions = {}): Template {
  const contexts = [...coreContextNames, ...(options.contexts ?? [])];
  const reads = emptyReads();
  let start = text.indexOf(open);
  if (start < 0) return { source: text, parts: text === '' ? [] : [{ kind: 'text', text }], contexts, reads };
  if (Buffer.byteLength(text, 'utf8') > maxTemplateBytes) {
    throw new ExpressionError(`a string with expressions may be at most 64 KiB; this one is ${Buffer.byteLength(text, 'utf8')} bytes`, 0);
  }
  const parts: TemplatePart[] = [];
  let position = 0;
  while (start >= 0) {
    if (start > position) parts.push({ kind: 'text', text: text.slice(position, start) });
    const end = closingBraces(text, start + open.length);
    if (end < 0) {
      throw new ExpressionError('the expression is not closed: "${{" has no closing "}}"', start);
    }
    const raw = text.slice(start + open.length, end);
    const offset = start + open.length + (raw.length - raw.trimStart().length);
    const source = raw.trim();
    if (source === '') throw new ExpressionError('an expression was expected between "${{" and "}}"', start);
    const expression = located(offset, () => parseExpressionSource(source, contexts));
    located(offset, () => analyzeExpression(expression, reads));
    parts.push({ kind: 'expression', expression, offset });
    position = end + 2;
    start = text.indexOf(open, position);
  }
  if (position < text.length) parts.push({ kind: 'text', text: text.slice(position) });
  return { source: text, parts: asLiteral(parts), contexts, reads };
}

/** The offset of the `}}` that closes an expression whose text starts at `from`, or -1. */
export function closingBraces(text: string, from: number): number {
  let inString = false;
  for (let index = from; index < text.length; index += 1) {
    const char = text[index];
    // Toggling on every quote also steps over a doubled one ('it''s').
    if (char === "'") inString = !inString;
    else if (!inString && char === '}' && text[index + 1] === '}') return index;
  }
  return -1;
}

/** A value that is one string literal (`${{ '{{ x }}' }}`) is that text, as in GitHub Actions. */
function asLiteral(parts: TemplatePart[]): TemplatePart[] {
  const [only] = parts;
  if (parts.length !== 1 || only?.kind !== 'expression') return parts;
  const tree = only.expression.tree;
  if (!(tree instanceof Literal) || tree.literal.kind !== data.Kind.String) return parts;
  return [{ kind: 'text', text: tree.literal.coerceString() }];
}

function located<T>(offset: number, operation: () => T): T {
  try {
    return operation();
  } catch (error) {
    if (error instanceof ExpressionError) throw error.shifted(offset);
    throw error;
  }
}

export function isLiteralTemplate(template: Template): boolean {
  return template.parts.every((part) => part.kind === 'text');
}

/** What a template's expressions read: see `ExpressionReads`. */
export function templateReferences(template: Template): ExpressionReads {
  return template.reads;
}
