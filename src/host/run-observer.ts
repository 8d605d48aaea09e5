import type { CapabilityRequest } from './capability.js';
import type { SandboxStatus } from './confinement/status.js';
import type { RunEvent } from './events.js';
import type { PreToolGate } from './gates.js';
import type { ToolCall } from './prepared-call.js';
import type { ToolResult } from './tool.js';

/** Watches a host beside the path: every event, and every finished call with the first request it put to authorization (for after_tool_use hooks). */
export interface RunObserver {
  /** Must return at once; what it throws is reported, never passed on. */
  event(event: RunEvent): void;
  callFinished(call: ToolCall, result: ToolResult, authorized: CapabilityRequest | undefined): void;
  /** Waits for what the observer still has to deliver; `ToolHost.dispose()` calls it. */
  drain?(): Promise<unknown>;
}

/** What a front end plugs into a run to gate and watch it (the CLI's hook programs). */
export interface RunHooks {
  gates: readonly PreToolGate[];
  observer: RunObserver;
  /** Called once the run is over, to let observers drain and report. */
  finish(): Promise<void>;
}

/** Where a run's hooks are declared: a workflow's `hooks:` key, plain data. */
export interface HookDeclarations {
  /** The workflow's `hooks:` value as parsed, if any. */
  inline: unknown;
  /** Where relative paths of inline hooks start (the workflow file's directory). */
  directory: string;
  /** The workflow's `secrets:` names, kept out of hook programs' environment. */
  secretNames: readonly string[];
  /** How hook programs are confined; unconfined when absent. */
  sandbox?: HookSandbox;
}

/** How a run's hook programs are confined: the run's sandbox status, and the homes and rho's own directories they must not see. */
export interface HookSandbox {
  status: SandboxStatus;
  homeDirectories: readonly string[];
  privatePaths?: readonly string[];
}

/** Builds a run's hooks once its workflow is known (the workflow may declare `hooks:`). */
export type RunHooksFactory = (declared: HookDeclarations, runId: string) => Promise<RunHooks>;
