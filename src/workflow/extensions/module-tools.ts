import type { Tool } from '../../host/tool.js';
import { checkModuleDeclaration } from './declaration.js';
import { importToolModule, ModuleLoadError } from './module-import.js';

/** Most tools one module may export. */
const maxToolsPerModule = 100;

export interface ModuleTools {
  tools: Tool[];
  warnings: string[];
}

/**
 * Loads the tools a module exports as its default export: one `defineTool(...)` definition or
 * an array of them. A module that cannot be loaded throws a ModuleLoadError; a definition that
 * fails the declaration checks is left out with a warning.
 */
export async function loadModuleTools(file: string, label: string): Promise<ModuleTools> {
  const loaded = await importToolModule(file);
  if (!('default' in loaded) || loaded.default === undefined) {
    throw new ModuleLoadError('the module has no default export; end it with `export default defineTool({...})`');
  }
  const exported = Array.isArray(loaded.default) ? (loaded.default as unknown[]) : [loaded.default];
  if (exported.length > maxToolsPerModule) throw new ModuleLoadError(`the module exports ${exported.length} tools; the limit is ${maxToolsPerModule}`);
  const tools: Tool[] = [];
  const warnings: string[] = [];
  for (const declaration of exported) {
    const checked = checkModuleDeclaration(declaration, label);
    warnings.push(...checked.warnings);
    if (checked.tool) tools.push(checked.tool);
  }
  return { tools, warnings };
}
