import type { Expression } from './ast.js';
import type { ExpressionContext } from './context.js';
import { atOffset, ExpressionError } from './errors.js';
import { evaluateExpression } from './evaluate.js';
import { parseExpression } from './parser.js';
import { tokenizeExpression } from './tokens.js';
import { toText } from './values.js';

/** Largest string, in UTF-8 bytes, that may hold expressions. */
export const maxTemplateBytes = 64 * 1024;

export type TemplatePart = { kind: 'text'; text: string } | { kind: 'expression'; expression: Expression; offset: number };

/** The parsed form of one string value: literal text and `${{ … }}` expressions, in order. */
export interface Template {
  readonly source: string;
  readonly parts: readonly TemplatePart[];
}

/**
 * Parses a string value. Strings without `${{` are literal whatever their size; strings with
 * expressions are limited to 64 KiB so hostile input cannot make parsing expensive.
 */
export function parseTemplate(text: string): Template {
  const parts: TemplatePart[] = [];
  let open = text.indexOf('${{');
  if (open >= 0 && Buffer.byteLength(text, 'utf8') > maxTemplateBytes) {
    throw new ExpressionError(`a string with expressions may be at most 64 KiB; this one is ${Buffer.byteLength(text, 'utf8')} bytes`, 0);
  }
  let position = 0;
  while (open >= 0) {
    if (open > position) parts.push({ kind: 'text', text: text.slice(position, open) });
    const { tokens, end } = tokenizeExpression(text, open + 3, open);
    parts.push({ kind: 'expression', expression: parseExpression(tokens), offset: open });
    position = end;
    open = text.indexOf('${{', position);
  }
  if (position < text.length) parts.push({ kind: 'text', text: text.slice(position) });
  return { source: text, parts };
}

export function isLiteralTemplate(template: Template): boolean {
  return template.parts.every((part) => part.kind === 'text');
}

/**
 * A string that is exactly one `${{ … }}` keeps the expression's type (number, boolean, object…);
 * otherwise each expression is written into the text (null as '', arrays and objects as JSON).
 */
export function evaluateTemplate(template: Template, context: ExpressionContext): unknown {
  const [only] = template.parts;
  if (template.parts.length === 1 && only?.kind === 'expression') return evaluateExpression(only.expression, context);
  if (isLiteralTemplate(template)) return template.source;
  return template.parts
    .map((part) => {
      if (part.kind === 'text') return part.text;
      const value = evaluateExpression(part.expression, context);
      return atOffset(part.offset, () => toText(value));
    })
    .join('');
}
