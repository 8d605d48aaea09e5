import { HostError } from '../host/errors.js';
import type { ToolRegistry } from '../host/registry.js';
import { compileWorkflow } from './compile.js';
import { loadExtensions, type WorkflowExtensions } from './extensions/load-extensions.js';
import type { MatrixFilter } from './matrix.js';
import type { CompiledWorkflow } from './model.js';
import { InvalidWorkflowError, type Problem } from './problems.js';
import { deadFileRuleWarnings } from './rule-warnings.js';
import { WorkflowSource } from './source.js';

/**
 * Reads, parses and validates one workflow file; every problem found is returned. The module
 * tools it names are loaded first (into a registry of its own, from `baseTools`) so validation
 * knows them; its MCP servers are not started, and steps naming their tools are accepted.
 */
export async function checkWorkflowFile(
  file: string,
  baseTools: ToolRegistry,
  task?: string,
  matrixFilter?: MatrixFilter,
): Promise<{ workflow?: CompiledWorkflow; extensions?: WorkflowExtensions; problems: Problem[] }> {
  const read = await WorkflowSource.read(file);
  if (!read.source) return { problems: read.problems };
  const extensions = await loadExtensions(read.source, baseTools);
  const pendingServers = extensions.servers.map((server) => server.declaration.name);
  const compiled = compileWorkflow(read.source, extensions.tools, { pendingServers, ...(task !== undefined && { task }), ...(matrixFilter !== undefined && { matrixFilter }) });
  if (compiled.workflow) {
    const targets = { tools: extensions.tools.list(), pendingNamespaces: pendingServers };
    extensions.warnings.push(...deadFileRuleWarnings(read.source, compiled.workflow.file, targets));
  }
  return { ...compiled, extensions, problems: [...read.problems, ...extensions.problems, ...compiled.problems] };
}

/**
 * As checkWorkflowFile for one task to run (the default task when absent), but throws
 * InvalidWorkflowError (with any warnings) when anything is wrong, and a usage error when the
 * task does not exist or the file has no default task.
 */
export async function loadWorkflowFile(
  file: string,
  baseTools: ToolRegistry,
  task?: string,
  matrixFilter?: MatrixFilter,
): Promise<{ workflow: CompiledWorkflow; extensions: WorkflowExtensions }> {
  const { workflow, extensions, problems } = await checkWorkflowFile(file, baseTools, task, matrixFilter);
  if (!workflow || !extensions || problems.length > 0) throw new InvalidWorkflowError([...problems, ...(extensions?.warnings ?? [])]);
  if (workflow.steps.length === 0) {
    const names = Object.keys(workflow.file.tasks ?? {});
    throw new HostError('usage', `${file} has no default steps; name a task: rho run ${file} TASK (tasks: ${names.join(', ')})`);
  }
  return { workflow, extensions };
}
