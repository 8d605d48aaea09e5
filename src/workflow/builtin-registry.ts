import { ToolRegistry } from '../host/registry.js';
import { builtinTools } from '../tools/index.js';

/**
 * A registry of the built-in tools. Its own module so that the commands which only check a file
 * (`list`, `validate`, `matrix`, completion) do not load the run path: the host, the runner,
 * expressions and the sandbox probe.
 */
export function builtinRegistry(): ToolRegistry {
  return new ToolRegistry(builtinTools());
}
