import path from 'node:path';
import { ToolRegistry } from '../../host/registry.js';
import type { Problem } from '../problems.js';
import type { NodePath, WorkflowSource } from '../source.js';
import { ModuleLoadError } from './module-import.js';
import { loadModuleTools, type ModuleTools } from './module-tools.js';
import { declaredToolSources, type DeclaredModule, type DeclaredServer } from './tool-sources.js';

/** What a workflow's `tools:` adds before it is validated. */
export interface WorkflowExtensions {
  /** The base tools plus the workflow's module tools. */
  tools: ToolRegistry;
  /** MCP servers the workflow declares: started by a run, never by validation. */
  servers: readonly DeclaredServer[];
  /** Module entries that were not imported (validation and planning never run workflow code). */
  uninspectedModules: readonly DeclaredModule[];
  /** Entries that make the workflow invalid (a module that does not load, a clashing name). */
  problems: Problem[];
  /** Tools left out or fields that fell back to defaults; located at their entry. */
  warnings: Problem[];
}

/**
 * Whether a workflow's module tools are imported. Importing runs the module's top-level code,
 * so only commands that go on to run the workflow (or list its tools on request) import; checking
 * and planning an untrusted workflow must never run its code.
 */
export type ModuleLoading = 'import' | 'skip';

/**
 * Loads the module tools a workflow names, relative to its file, into a registry of its own
 * (so one workflow's modules never leak into another's validation). Module code is trusted host
 * code and runs when it is imported, so with `skip` nothing is imported and the modules are only
 * listed as uninspected; MCP servers are only collected here.
 */
export async function loadExtensions(source: WorkflowSource, baseTools: ToolRegistry, loading: ModuleLoading = 'import'): Promise<WorkflowExtensions> {
  const declared = declaredToolSources(source);
  const { servers } = declared;
  const modules = loading === 'import' ? declared.modules : [];
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
  return { tools, servers, uninspectedModules: loading === 'import' ? [] : declared.modules, problems, warnings };
}
