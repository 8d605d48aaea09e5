import type { Tool } from '../host/tool.js';
import { evaluateDeep, type ExpressionContext } from './expressions/index.js';
import type { CompiledStep } from './model.js';
import { expectsText } from './schema-keys.js';

/**
 * A step's arguments, evaluated for its tool: where the tool takes text (a command, an argument,
 * an environment value), a number or boolean is its text, so `args: ["${{ matrix.node }}"]`
 * with `node: [18, 20]` passes `18`.
 */
export function evaluateArguments(step: Pick<CompiledStep, 'with'>, context: ExpressionContext, tool: Pick<Tool, 'schema'> | undefined): unknown {
  const schema = tool?.schema;
  return evaluateDeep(step.with, context, schema === undefined ? undefined : (path) => expectsText(schema, path));
}
