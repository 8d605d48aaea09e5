import type { McpServerDeclaration } from '../../tools/mcp/server-launch.js';
import { workflowSchema } from '../schema.js';
import type { NodePath, WorkflowSource } from '../source.js';

/** A `module:` entry: the path as written (relative to the workflow file) and where it is. */
export interface DeclaredModule {
  path: string;
  at: NodePath;
}

/** An `mcp:` entry; its `env` values may still hold expressions. */
export interface DeclaredServer {
  declaration: McpServerDeclaration;
  at: NodePath;
}

/**
 * The `tools:` entries of a workflow, read before validation so that module tools are known
 * to it. An invalid `tools:` list yields nothing here: validation reports it with the schema.
 */
export function declaredToolSources(source: WorkflowSource): { modules: DeclaredModule[]; servers: DeclaredServer[] } {
  const data = source.toData();
  const raw = typeof data === 'object' && data !== null ? (data as { tools?: unknown }).tools : undefined;
  const parsed = workflowSchema.shape.tools.safeParse(raw);
  const modules: DeclaredModule[] = [];
  const servers: DeclaredServer[] = [];
  if (!parsed.success || parsed.data === undefined) return { modules, servers };
  parsed.data.forEach((entry, index) => {
    if ('module' in entry) modules.push({ path: entry.module, at: ['tools', index, 'module'] });
    else servers.push({ declaration: entry.mcp, at: ['tools', index, 'mcp'] });
  });
  return { modules, servers };
}
