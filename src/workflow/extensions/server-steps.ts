import type { ToolRegistry } from '../../host/registry.js';
import { compileWorkflow } from '../compile.js';
import type { CompiledWorkflow } from '../model.js';
import type { Problem } from '../problems.js';

/**
 * Checks the steps that call one server's tools, once it runs and its tools are registered: a
 * step naming a tool the server does not offer (with the closest names), or giving it arguments
 * its schema refuses. The other servers' steps are left for their own check.
 */
export function serverStepProblems(workflow: CompiledWorkflow, tools: ToolRegistry, server: string, servers: readonly string[]): Problem[] {
  const others = servers.filter((name) => name !== server);
  return compileWorkflow(workflow.source, tools, { pendingServers: others }).problems;
}
