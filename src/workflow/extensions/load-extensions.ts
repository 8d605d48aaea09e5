import path from 'node:path';
import { ToolRegistry } from '../../host/registry.js';
import type { Problem } from '../problems.js';
import type { NodePath, WorkflowSource } from '../source.js';
import { ModuleLoadError } from './module-import.js';
import { loadModuleTools, type ModuleTools } from './module-tools.js';
import { declaredToolSources, type DeclaredServer } from './tool-sources.js';

/** What a workflow's `tools:` adds before it is validated. */
export interface WorkflowExtensions {
  /** The base tools plus the workflow's module tools. */
  tools: ToolRegistry;
  /** MCP servers the workflow declares: started by a run, never by validation. */
  servers: readonly DeclaredServer[];
  /** Entries that make the workflow invalid (a module that does not load, a clashing name). */
  problems: Problem[];
  /** Tools left out or fields that fell back to defaults; located at their entry. */
  warnings: Problem[];
}

/**
 * Loads the module tools a workflow names, relative to its file, into a registry of its own
 * (so one workflow's modules never leak into another's validation). Module code is trusted host
 * code and runs when it is imported; MCP servers are only collected here.
 */
export async function loadExtensions(source: WorkflowSource, baseTools: ToolRegistry): Promise<WorkflowExtensions> {
  const { modules, servers } = declaredToolSources(source);
  const at = (nodePath: NodePath, message: string): Problem => ({ file: source.file, ...source.position(nodePath), message });
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const tools = new ToolRegistry(baseTools.list());
  const loaded = await Promise.all(
    modules.map(async (entry): Promise<ModuleTools | ModuleLoadError> => {
      try {
        return await loadModuleTools(path.resolve(source.directory, entry.path), entry.path);
      } catch (error) {
        if (error instanceof ModuleLoadError) return error;
        throw error;
      }
    }),
  );
  modules.forEach((entry, index) => {
    const result = loaded[index]!;
    if (result instanceof ModuleLoadError) {
      problems.push(at(entry.at, `tool module ${entry.path}: ${result.message}`));
      return;
    }
    for (const warning of result.warnings) warnings.push(at(entry.at, `warning: ${warning}`));
    for (const tool of result.tools) {
      const existing = tools.get(tool.name);
      if (existing) {
        problems.push(at(entry.at, `tool module ${entry.path}: a tool named ${tool.name} is already registered (${existing.origin}); rename it`));
      } else {
        tools.register(tool);
      }
    }
  });
  const serverNames = new Set<string>();
  for (const server of servers) {
    const { name } = server.declaration;
    if (serverNames.has(name)) problems.push(at([...server.at, 'name'], `MCP server name ${name} is used twice; each server needs its own name`));
    serverNames.add(name);
  }
  return { tools, servers, problems, warnings };
}
