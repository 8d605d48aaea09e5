/** rho as a library: the provider-free ToolHost and what it is built from. */
/** The zod rho validates with: tool schemas must come from the same zod to be understood. */
export { z } from 'zod';
export { ToolHost, interruptReason, type ToolHostOptions } from './host/tool-host.js';
export { ToolHostRun, type ToolHostRunEvent } from './host/tool-host-run.js';
export { SecretMasker } from './host/masking.js';
export { defineTool, defaultToolTimeoutMs } from './host/tool.js';
export type {
  Tool,
  ToolDefinition,
  ToolOutput,
  ToolResult,
  ToolStatus,
  ToolOrigin,
  ExecutionPolicy,
  ExecutionMode,
  ExecuteContext,
  PrepareContext,
  ToolContext,
  PreparedExecution,
  HostEnvironment,
  ImageContent,
  ToolProgress,
} from './host/tool.js';
export { Workspace, ResolvedPath, type PathScope } from './host/workspace.js';
export { Policy, type PolicyDecision } from './host/policy.js';
export { parseRule, type Rule } from './host/rules.js';
export { ToolRegistry } from './host/registry.js';
export { ToolError, toolErrorKinds, type ToolErrorKind } from './host/errors.js';
export type { CapabilityRequest, CapabilityClass } from './host/capability.js';
export { describeRequest, grantingRule } from './host/capability.js';
export type { Approver, ApprovalAnswer, ApprovalRequest, Decider } from './host/approval.js';
export type { ScriptedApprovals, ScriptedAnswer, ScriptedDecision } from './host/authorization.js';
export type { PreToolGate, GateInput, GateAnswer } from './host/gates.js';
export * from './host/hooks/index.js';
export type { Questioner, HostInput, HostInputResponse, Question } from './host/host-input.js';
export type { HostEvent, AuditRecord } from './host/events.js';
export type { ToolCall } from './host/prepared-call.js';
export type { ResourceAccess, Resource } from './host/resources.js';
export { shared, exclusive, opaqueKey } from './host/resources.js';
export { builtinTools } from './tools/index.js';
