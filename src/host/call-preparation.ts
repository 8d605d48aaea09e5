import { parseArguments } from './arguments.js';
import { ToolError, toToolError } from './errors.js';
import { freezeRequest } from './frozen-request.js';
import type { PreparedCall, ToolCall } from './prepared-call.js';
import type { ToolRegistry } from './registry.js';
import { isValidTimeout, timeoutExpectation } from './tool-declaration.js';
import { toolBody, type PrepareContext, type PreparedExecution, type ToolContext } from './tool.js';

/**
 * Parses a call's arguments strictly and lets a resource-aware tool resolve what it will ask for
 * and touch. Returns the typed error instead of throwing. Capability requests are frozen: gates
 * and approvers see exactly what will execute, and nothing can change it on the way.
 */
export async function prepareCall(tools: ToolRegistry, call: ToolCall, context: Omit<PrepareContext, 'timeoutMs'>): Promise<PreparedCall | ToolError> {
  // A tool of an MCP server that is still starting, or listing its tools again: the call waits for that server alone.
  const tool = await tools.resolve(call.tool, context.signal);
  if (tool instanceof ToolError) return tool;
  if (!tool) return new ToolError('unknown_tool', `no tool named ${call.tool} is registered`);
  if (call.timeoutMs !== undefined && !isValidTimeout(call.timeoutMs)) {
    return new ToolError('invalid_arguments', `call ${call.id}: timeoutMs should be ${timeoutExpectation} (got ${call.timeoutMs}); leave it out for the tool's own limit`);
  }
  const timeoutMs = call.timeoutMs ?? tool.timeoutMs;
  const body = toolBody(tool);
  try {
    const args = parseArguments(tool.name, tool.schema, call.args);
    if (body.executionPolicy === 'exclusive') {
      const run = (ctx: ToolContext) => body.run(args, ctx);
      return { kind: 'exclusive', call, tool, timeoutMs, requests: [], resources: undefined, summary: undefined, run };
    }
    const plan = checkPlan(tool.name, await body.prepare(args, { ...context, timeoutMs }));
    return {
      kind: 'planned',
      call,
      tool,
      timeoutMs,
      requests: plan.requests.map(freezeRequest),
      resources: plan.resources,
      summary: plan.summary,
      confinement: plan.confinement,
      execute: (ctx) => promiseOf(() => plan.execute(ctx)),
    };
  } catch (thrown) {
    return toToolError(thrown, 'invalid_arguments');
  }
}

/**
 * What `run` settles with as a promise: the tool's own when it returns one (no wrapper of ours
 * around it, one promise and its hops fewer per call), a rejection when it throws at once.
 */
function promiseOf<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(run());
  } catch (thrown) {
    return Promise.reject(thrown);
  }
}

/** What `prepare` returned, checked against the contract: the requests and resources it declares, and how to execute. */
function checkPlan(tool: string, plan: unknown): PreparedExecution {
  const problem = planProblem(plan);
  if (problem) throw new ToolError('execution_failed', `tool ${tool}: prepare returned ${problem}; return { requests: [...], resources: [...], execute(ctx) { ... } }`);
  return plan as PreparedExecution;
}

function planProblem(plan: unknown): string | undefined {
  if (typeof plan !== 'object' || plan === null) return `${plan === null ? 'null' : typeof plan} instead of a plan`;
  const { requests, resources, execute } = plan as Record<string, unknown>;
  if (!Array.isArray(requests)) return 'a plan without a requests list';
  if (!Array.isArray(resources)) return 'a plan without a resources list';
  if (typeof execute !== 'function') return 'a plan without an execute function';
  return undefined;
}
