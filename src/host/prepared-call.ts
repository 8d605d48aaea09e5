import type { CapabilityRequest } from './capability.js';
import type { CallConfinement } from './confinement/index.js';
import type { Delegation } from './hooks/delegation.js';
import type { ResourceAccess } from './resources.js';
import type { ExecuteContext, Tool, ToolContext, ToolOutput } from './tool.js';

/** One call as the caller wrote it. */
export interface ToolCall {
  id: string;
  tool: string;
  args: unknown;
  stepId?: string;
  /**
   * Who delegated the call, for the hooks: a call a nested workflow group makes is a child of
   * the step that runs the group. Identity only: it grants and restricts nothing.
   */
  delegation?: Delegation;
  /** Per-call wall limit; the tool's own default when absent. */
  timeoutMs?: number;
  /**
   * Where the call's processes may write (globs as in `write` rules): narrows the policy's
   * writable roots for this call, never widens them. Absent: everything the policy grants.
   */
  writes?: readonly string[];
}

/**
 * A call after preparation: arguments parsed, paths and executables resolved, and what it will
 * ask for and touch declared. `resources` undefined means the call is exclusive (a barrier).
 */
export type PreparedCall =
  | {
      kind: 'planned';
      call: ToolCall;
      tool: Tool;
      timeoutMs: number;
      requests: readonly CapabilityRequest[];
      resources: readonly ResourceAccess[];
      summary: string | undefined;
      confinement?: CallConfinement | undefined;
      execute(ctx: ExecuteContext): Promise<ToolOutput>;
    }
  | {
      kind: 'exclusive';
      call: ToolCall;
      tool: Tool;
      timeoutMs: number;
      requests: readonly [];
      resources: undefined;
      summary: undefined;
      confinement?: undefined;
      run(ctx: ToolContext): Promise<ToolOutput>;
    };
