import type { Expression } from './ast.js';
import type { ExpressionContext } from './context.js';
import { atOffset } from './errors.js';
import { callFunction } from './functions.js';
import { compareValues, isTruthy, member } from './values.js';

/**
 * Computes the value of a parsed expression. Pure: it reads `context` and nothing else.
 * Missing contexts, steps and properties read as null; only functions can fail, and their
 * failures become `ExpressionError`s at the call's offset.
 */
export function evaluateExpression(node: Expression, context: ExpressionContext): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'context':
      return context[node.root] ?? null;
    case 'step':
      return member(context.steps, node.id);
    case 'access':
      return node.keys.reduce<unknown>((object, key) => {
        const name = evaluateExpression(key, context);
        return atOffset(key.offset, () => member(object, name));
      }, evaluateExpression(node.object, context));
    case 'not':
      return !isTruthy(evaluateExpression(node.operand, context));
    case 'logical':
      return evaluateLogical(node.operator, node.operands, context);
    case 'comparison':
      return node.rest.reduce<unknown>(
        (left, { operator, operand }) => compareValues(operator, left, evaluateExpression(operand, context)),
        evaluateExpression(node.first, context),
      );
    case 'call': {
      const args = node.args.map((arg) => evaluateExpression(arg, context));
      return atOffset(node.offset, () => callFunction(node.name, args, context.run));
    }
  }
}

/** `&&` yields the first falsy operand, `||` the first truthy one; otherwise the last operand. */
function evaluateLogical(operator: '&&' | '||', operands: readonly Expression[], context: ExpressionContext): unknown {
  let value: unknown = null;
  for (const operand of operands) {
    value = evaluateExpression(operand, context);
    if (isTruthy(value) === (operator === '||')) return value;
  }
  return value;
}
