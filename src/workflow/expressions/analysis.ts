import { data, wellKnownFunctions, type Expr } from '@actions/expressions';
import { Binary, ContextAccess, FunctionCall, Grouping, IndexAccess, Literal, Logical, Star, Unary } from '@actions/expressions/ast';
import { ExpressionError } from './errors.js';
import { isStatusFunction } from './functions.js';
import type { ParsedExpression } from './parse.js';

/** A context value an expression reads by fixed names: `steps.build.data.x` is `{ context: 'steps', keys: ['build', 'data', 'x'] }`. */
export interface ValueSource {
  context: string;
  /** Property names as written; a computed index or `*` ends the list. */
  keys: readonly string[];
}

/** What an expression reads, for validation, for ordering steps, and for tracking untrusted values. */
export interface ExpressionReads {
  /** Step ids read through `steps.<id>` (always fixed, so dependencies are known before running). */
  steps: Set<string>;
  /** Names read through `inputs.x`, `secrets['x']`, `env.x`, as written (contexts are case-insensitive). */
  inputs: Set<string>;
  secrets: Set<string>;
  env: Set<string>;
  /** Uses success(), failure(), always() or cancelled(). */
  statusFunctions: boolean;
  /** Every context it reads anything of (lower case), however: what it depends on beyond literals. */
  contexts: Set<string>;
  /** The context values that can become (part of) the expression's value; comparisons and tests yield booleans and add none. */
  valueSources: ValueSource[];
}

export function emptyReads(): ExpressionReads {
  return { steps: new Set(), inputs: new Set(), secrets: new Set(), env: new Set(), statusFunctions: false, contexts: new Set(), valueSources: [] };
}

const stepFields: readonly string[] = ['status', 'output', 'data'];
const namedContexts = ['inputs', 'secrets', 'env'] as const;
/** Functions whose result is a boolean computed from their arguments, never one of them. */
const testFunctions: ReadonlySet<string> = new Set(['contains', 'startswith', 'endswith']);

/**
 * rho's rules on top of GitHub's grammar, checked on the parsed tree, and what the expression
 * reads. A step must be named (`steps.build`, `steps['build']`) so rho knows what to wait for;
 * its fields are `status`, `output` and `data`; a literal `format()` string is checked now.
 * Offsets in errors are within the expression's source.
 */
export function analyzeExpression(parsed: ParsedExpression, into: ExpressionReads): void {
  if (parsed.tree === undefined) return;
  const offsetOf = (node: ContextAccess | Literal): number => tokenOffset(node, parsed);
  // An explicit stack: a chain such as `a == b == c …` nests as deep as it is long.
  const pending: Expr[] = [parsed.tree];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (node instanceof IndexAccess) {
      if (isContext(node.expr, 'steps')) {
        const id = literalKey(node.index);
        if (id === undefined) throw new ExpressionError(stepIdMessage, offsetOf(node.expr));
        into.steps.add(id.toLowerCase());
        into.contexts.add('steps');
        continue;
      }
      if (node.expr instanceof IndexAccess && isContext(node.expr.expr, 'steps')) checkStepField(node, offsetOf);
      for (const name of namedContexts) {
        const key = isContext(node.expr, name) ? literalKey(node.index) : undefined;
        if (key !== undefined) into[name].add(key);
      }
      pending.push(node.expr);
      if (!(node.index instanceof Star)) pending.push(node.index);
    } else if (node instanceof ContextAccess) {
      into.contexts.add(node.name.lexeme.toLowerCase());
      if (isContext(node, 'steps')) throw new ExpressionError(stepIdMessage, offsetOf(node));
    } else if (node instanceof FunctionCall) {
      if (isStatusFunction(node.functionName.lexeme)) into.statusFunctions = true;
      if (node.functionName.lexeme.toLowerCase() === 'format') checkLiteralFormat(node, offsetOf);
      pending.push(...node.args);
    } else if (node instanceof Unary || node instanceof Grouping) {
      pending.push(node instanceof Unary ? node.expr : node.group);
    } else if (node instanceof Binary) {
      pending.push(node.left, node.right);
    } else if (node instanceof Logical) {
      pending.push(...node.args);
    }
  }
  into.valueSources.push(...valueSources(parsed.tree));
}

const stepIdMessage = '"steps" must be followed by a step id, as in steps.build.status or steps[\'build\'].output';

function checkStepField(node: IndexAccess, offsetOf: (node: Literal) => number): void {
  const field = literalKey(node.index);
  if (field === undefined || stepFields.includes(field.toLowerCase())) return;
  const id = literalKey((node.expr as IndexAccess).index);
  throw new ExpressionError(`steps.${id} has no "${field}"; use status, output or data`, offsetOf(node.index as Literal));
}

/** A literal format string is checked now, so `rho validate` reports it before anything runs. */
function checkLiteralFormat(call: FunctionCall, offsetOf: (node: Literal) => number): void {
  const [format, ...values] = call.args;
  if (!(format instanceof Literal) || format.literal.kind !== data.Kind.String) return;
  try {
    wellKnownFunctions.format!.call(format.literal, ...values.map(() => new data.Null()));
  } catch (error) {
    throw new ExpressionError(`format(): ${(error as Error).message}`, offsetOf(format), { cause: error });
  }
}

/**
 * Which context values can flow into the value of `node`. The recursion follows only
 * groupings, `&&`/`||`, value-passing function calls and property chains, whose nesting the
 * parser bounds; comparisons and `!` end it.
 */
function valueSources(node: Expr): ValueSource[] {
  if (node instanceof ContextAccess) return [{ context: node.name.lexeme.toLowerCase(), keys: [] }];
  if (node instanceof IndexAccess) {
    const keys: string[] = [];
    let object: Expr = node;
    for (; object instanceof IndexAccess; object = object.expr) {
      const key = literalKey(object.index);
      // A computed key or `*` ends the fixed part: everything after it is at most as trusted as what comes before.
      if (key === undefined) keys.length = 0;
      else keys.push(key);
    }
    if (object instanceof ContextAccess) return [{ context: object.name.lexeme.toLowerCase(), keys: keys.reverse() }];
    return valueSources(object);
  }
  if (node instanceof Grouping) return valueSources(node.group);
  if (node instanceof Logical) return node.args.flatMap(valueSources);
  if (node instanceof FunctionCall) {
    const name = node.functionName.lexeme.toLowerCase();
    return testFunctions.has(name) || isStatusFunction(name) ? [] : node.args.flatMap(valueSources);
  }
  return [];
}

function isContext(node: Expr, name: string): node is ContextAccess {
  return node instanceof ContextAccess && node.name.lexeme.toLowerCase() === name;
}

/** The property name a literal index selects (`x.name`, `x['name']`, `x[1]`); undefined for anything computed. */
function literalKey(index: Expr): string | undefined {
  return index instanceof Literal && index.literal.primitive ? index.literal.coerceString() : undefined;
}

/** Where a name or a literal starts: the offset of its token. */
function tokenOffset(node: ContextAccess | Literal, parsed: ParsedExpression): number {
  return parsed.offsets.get(node instanceof Literal ? node.token : node.name) ?? 0;
}
