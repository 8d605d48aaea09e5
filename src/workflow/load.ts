import type { ToolRegistry } from '../host/registry.js';
import { compileWorkflow } from './compile.js';
import type { CompiledWorkflow } from './model.js';
import { InvalidWorkflowError, type Problem } from './problems.js';
import { WorkflowSource } from './source.js';

/** Reads, parses and validates one workflow file; every problem found is returned. */
export async function checkWorkflowFile(file: string, tools: ToolRegistry): Promise<{ workflow?: CompiledWorkflow; problems: Problem[] }> {
  const read = await WorkflowSource.read(file);
  if (!read.source) return { problems: read.problems };
  const compiled = compileWorkflow(read.source, tools);
  return { ...compiled, problems: [...read.problems, ...compiled.problems] };
}

/** As checkWorkflowFile, but throws InvalidWorkflowError when anything is wrong. */
export async function loadWorkflowFile(file: string, tools: ToolRegistry): Promise<CompiledWorkflow> {
  const { workflow, problems } = await checkWorkflowFile(file, tools);
  if (!workflow || problems.length > 0) throw new InvalidWorkflowError(problems);
  return workflow;
}
