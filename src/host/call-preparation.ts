import { parseArguments } from './arguments.js';
import { ToolError, toToolError } from './errors.js';
import type { PreparedCall, ToolCall } from './prepared-call.js';
import type { ToolRegistry } from './registry.js';
import type { PrepareContext } from './tool.js';

/**
 * Parses a call's arguments strictly and lets a resource-aware tool resolve what it will ask for
 * and touch. Returns the typed error instead of throwing. Capability requests are frozen: gates
 * and approvers see exactly what will execute, and nothing can change it on the way.
 */
export async function prepareCall(tools: ToolRegistry, call: ToolCall, context: Omit<PrepareContext, 'timeoutMs'>): Promise<PreparedCall | ToolError> {
  // A tool of an MCP server that is still starting: the call waits for that server alone.
  const tool = tools.get(call.tool) ?? (await tools.resolve(call.tool, context.signal));
  if (tool instanceof ToolError) return tool;
  if (!tool) return new ToolError('unknown_tool', `no tool named ${call.tool} is registered`);
  const timeoutMs = call.timeoutMs ?? tool.timeoutMs;
  try {
    const args = parseArguments(tool.name, tool.schema, call.args);
    if (!('prepare' in tool) || tool.executionPolicy !== 'resource-aware') {
      if (!('run' in tool)) return new ToolError('internal', `tool ${call.tool} has neither prepare nor run`);
      const run = tool.run.bind(tool, args);
      return { kind: 'exclusive', call, tool, timeoutMs, requests: [], resources: undefined, summary: undefined, run };
    }
    const plan = await tool.prepare(args, { ...context, timeoutMs });
    const requests = plan.requests.map(deepFreeze);
    return {
      kind: 'planned',
      call,
      tool,
      timeoutMs,
      requests,
      resources: plan.resources,
      summary: plan.summary,
      confinement: plan.confinement,
      execute: plan.execute,
    };
  } catch (thrown) {
    return toToolError(thrown, 'invalid_arguments');
  }
}

/** Freezes a value and everything it holds (class instances keep their private state). */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  return value;
}
