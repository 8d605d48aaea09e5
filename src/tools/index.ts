import type { Tool } from '../host/tool.js';
import { echoTool } from './echo.js';

/** Every built-in tool, in the order `rho tools` lists them. */
export function builtinTools(): Tool[] {
  return [echoTool];
}
