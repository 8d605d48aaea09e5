import { data, Evaluator, type Expr } from '@actions/expressions';
import type { FunctionCall, IndexAccess } from '@actions/expressions/ast';
import type { FunctionDefinition } from '@actions/expressions/funcs/info';
import { analyzeExpression, emptyReads } from './analysis.js';
import { coreContextNames, type ExpressionContext } from './context.js';
import { ContextWrappers, fromData } from './data.js';
import { ExpressionError } from './errors.js';
import { extensionFunctions } from './functions.js';
import { parseExpressionSource, type ParsedExpression } from './parse.js';
import type { Template } from './template.js';

/**
 * The official evaluator, with failures located: a function that fails (invalid JSON for
 * `fromJSON`, a bad format string) is reported at its name.
 */
class LocatingEvaluator extends Evaluator {
  constructor(
    tree: Expr,
    root: data.Dictionary,
    functions: Map<string, FunctionDefinition>,
    private readonly parsed: ParsedExpression,
  ) {
    super(tree, root, functions);
  }

  override visitFunctionCall(call: FunctionCall): data.ExpressionData {
    try {
      return super.visitFunctionCall(call);
    } catch (error) {
      if (error instanceof ExpressionError) throw error;
      const cause = (error as Error).cause;
      const detail = cause instanceof Error ? `: ${cause.message}` : '';
      const message = error instanceof RangeError ? 'the value is nested too deeply' : (error as Error).message;
      throw new ExpressionError(`${call.functionName.lexeme}(): ${message}${detail}`, this.parsed.offsets.get(call.functionName) ?? 0, { cause: error });
    }
  }

  /** The official evaluator wraps a failure inside an index in a plain Error; its cause is the failure itself. */
  override visitIndexAccess(access: IndexAccess): data.ExpressionData {
    try {
      return super.visitIndexAccess(access);
    } catch (error) {
      const cause = (error as Error).cause;
      if (!(error instanceof ExpressionError) && (cause instanceof ExpressionError || cause instanceof RangeError)) throw cause;
      throw error;
    }
  }
}

/** One evaluation's view of the context: the root dictionary and the functions. */
class Scope {
  private readonly view = new ContextWrappers();
  readonly root: data.Dictionary;
  readonly functions: Map<string, FunctionDefinition>;

  constructor(context: ExpressionContext) {
    this.root = new data.Dictionary(
      ...coreContextNames.map((name) => ({ key: name, value: this.view.toData(context[name]) })),
      ...Object.entries(context.extra ?? {}).map(([key, value]) => ({ key, value: this.view.toData(value) })),
    );
    this.functions = extensionFunctions(context.run);
  }

  evaluate(parsed: ParsedExpression, offset: number): data.ExpressionData {
    if (parsed.tree === undefined) return new data.Null();
    try {
      return new LocatingEvaluator(parsed.tree, this.root, this.functions, parsed).evaluate();
    } catch (error) {
      if (error instanceof ExpressionError) throw error.shifted(offset);
      // A chain of comparisons is as deep as it is long; the parser bounds everything else.
      if (error instanceof RangeError) throw new ExpressionError('the expression is nested too deeply to evaluate', offset, { cause: error });
      throw error;
    }
  }
}

/**
 * A string that is exactly one `${{ … }}` keeps the expression's type (number, boolean, object…);
 * otherwise each expression is written into the text as GitHub Actions writes it (null as '',
 * numbers as up to 15 significant digits, an array as `Array`, an object as `Object`).
 * Pure: it reads `context` and nothing else.
 */
export function evaluateTemplate(template: Template, context: ExpressionContext): unknown {
  const [only] = template.parts;
  if (template.parts.length === 0) return template.source;
  if (template.parts.length === 1 && only?.kind === 'text') return only.text;
  const scope = new Scope(context);
  if (template.parts.length === 1 && only?.kind === 'expression') return plainValueOf(scope.evaluate(only.expression, only.offset), only.offset);
  return template.parts.map((part) => (part.kind === 'text' ? part.text : scope.evaluate(part.expression, part.offset).coerceString())).join('');
}

/**
 * Parses, checks and evaluates the text of one expression, without `${{ }}`: what the
 * agreement test compares with GitHub's own evaluator.
 */
export function evaluateExpressionSource(source: string, context: ExpressionContext, contexts: readonly string[] = []): unknown {
  const parsed = parseExpressionSource(source, [...coreContextNames, ...contexts]);
  analyzeExpression(parsed, emptyReads());
  return plainValueOf(new Scope(context).evaluate(parsed, 0), 0);
}

function plainValueOf(value: data.ExpressionData, offset: number): unknown {
  try {
    return fromData(value);
  } catch (error) {
    if (error instanceof RangeError) throw new ExpressionError('the value is nested too deeply', offset, { cause: error });
    throw error;
  }
}
