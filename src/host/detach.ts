import { describeResourceKind } from './resources.js';
import type { Declaration } from './schedule-types.js';
import type { Tool } from './tool.js';

/**
 * Why a call the caller asked to detach may not run detached, or undefined when it may. Both
 * keys are needed — the tool declares `mode: 'async'` and the caller asks — and what the call
 * touches must be declared with shared access only: by the tool's plan, and by what the caller
 * declares in its place. The reason names neither paths nor keys.
 */
export function detachRefusal(tool: Tool, plan: Declaration, declared: Declaration | undefined): string | undefined {
  if (tool.mode !== 'async') return `its tool ${tool.name} does not declare mode "async" (a call runs detached only when its tool declares async and its caller asks)`;
  for (const declaration of declared === undefined ? [plan] : [plan, declared]) {
    if (declaration === 'exclusive') return 'it runs exclusively (its plan declares no resources); a detached call must declare what it touches, with shared access only';
    const exclusiveAccess = declaration.find((access) => access.mode === 'exclusive');
    if (exclusiveAccess) return `it takes exclusive access to its ${describeResourceKind(exclusiveAccess.resource)}; a detached call may take shared access only`;
  }
  return undefined;
}
