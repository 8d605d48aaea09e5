import { data } from '@actions/expressions';
import type { ExpressionContext } from './context.js';
import { ExpressionError } from './errors.js';
import { evaluateTemplate } from './evaluate.js';
import { parseTemplate, type ParseOptions } from './template.js';

export type ValuePath = (string | number)[];

/** Calls `visit` for every string inside a nested JSON value (object keys are not templates). */
export function walkTemplates(value: unknown, visit: (text: string, path: ValuePath) => void): void {
  walk(value, [], visit);
}

function walk(value: unknown, path: ValuePath, visit: (text: string, path: ValuePath) => void): void {
  if (typeof value === 'string') visit(value, path);
  else if (Array.isArray(value)) for (const [index, element] of value.entries()) walk(element, [...path, index], visit);
  else if (isRecord(value)) for (const [key, element] of Object.entries(value)) walk(element, [...path, key], visit);
}

/** Where the value being evaluated expects text: a number or boolean an expression yields there becomes its text. */
export type TextPlaces = (path: ValuePath) => boolean;

/**
 * A copy of `value` with every string evaluated as a template, which may read every context
 * `context` has (a list item that evaluates to a list is spliced in: see `spliced`). Where
 * `asText` says text is expected, a number or boolean a whole `${{ … }}` yields is written as
 * text (as GitHub Actions writes it), as is a number or boolean written there, so a matrix's
`node: [18, 20]` can be a command's argument. An error
 * names the failing string's place through `ExpressionError.path`.
 */
export function evaluateDeep(value: unknown, context: ExpressionContext, asText: TextPlaces = () => false): unknown {
  return evaluateAt(value, [], context, { contexts: Object.keys(context.extra ?? {}) }, asText);
}

function evaluateAt(value: unknown, path: ValuePath, context: ExpressionContext, options: ParseOptions, asText: TextPlaces): unknown {
  if (typeof value === 'string') {
    try {
      return textWhereExpected(evaluateTemplate(parseTemplate(value, options), context), path, asText);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      throw new ExpressionError(error.message, error.offset, { cause: error.cause, path });
    }
  }
  if (Array.isArray(value)) {
    return value.flatMap((element, index) => {
      const at = [...path, index];
      return spliced(element, evaluateAt(element, at, context, options, asText), options).map((item) => textWhereExpected(item, at, asText));
    });
  }
  if (isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, element]) => [key, evaluateAt(element, [...path, key], context, options, asText)]));
  }
  return textWhereExpected(value, path, asText);
}

function textWhereExpected(value: unknown, path: ValuePath, asText: TextPlaces): unknown {
  if (typeof value === 'number' && asText(path)) return new data.NumberData(value).coerceString();
  if (typeof value === 'boolean' && asText(path)) return String(value);
  return value;
}

/**
 * An item of a list that is one whole `${{ … }}` whose value is a list is spliced into it, so
 * `args: [test, "${{ inputs.args }}"]` passes every extra argument as its own item.
 */
function spliced(raw: unknown, evaluated: unknown, options: ParseOptions): readonly unknown[] {
  if (!Array.isArray(evaluated) || typeof raw !== 'string' || !isWholeExpression(raw, options)) return [evaluated];
  return evaluated;
}

function isWholeExpression(text: string, options: ParseOptions): boolean {
  const template = parseTemplate(text, options);
  return template.parts.length === 1 && template.parts[0]!.kind === 'expression';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
