import type { ToolRegistry } from '../../host/registry.js';
import { compileWorkflow } from '../compile.js';
import type { CompiledWorkflow } from '../model.js';
import { InvalidWorkflowError } from '../problems.js';

/**
 * Validates a workflow again once its MCP servers run and their tools are registered: a step
 * naming a server tool that does not exist (with the closest names), or giving it arguments its
 * schema refuses, makes the workflow invalid before any step starts.
 */
export function compileWithServerTools(workflow: CompiledWorkflow, tools: ToolRegistry): CompiledWorkflow {
  const { workflow: compiled, problems } = compileWorkflow(workflow.source, tools);
  if (!compiled || problems.length > 0) throw new InvalidWorkflowError(problems);
  return compiled;
}
