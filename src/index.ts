/** rho as a library: the provider-free ToolHost and what it is built from. */
/** The zod rho validates with: tool schemas must come from the same zod to be understood. */
export { z } from 'zod';
export {
  ToolHost,
  interruptReason,
  type ToolHostOptions,
  type CallTicket,
  type CallOutcome,
  type CallPreview,
  type SubmitOptions,
  type EventListener,
  type RunObserver,
} from './host/tool-host.js';
export { createToolHost, type ToolHostSetup, type ApproveFunction } from './host/create-host.js';
export type { ResultRewriter, ResultRewriteInput } from './host/result-rewrite.js';
export { ToolHostRun, maxQueuedProgress, type ToolHostRunEvent } from './host/tool-host-run.js';
export { maxQueuedOutput } from './host/progress-queue.js';
export { maxProgressChars } from './host/progress.js';
export { defaultOutputShownBytes, type OutputLog, type OutputLogs, type OutputOptions, type OutputStream } from './host/step-output.js';
export { SecretMasker } from './host/masking.js';
export { defineTool, defaultToolTimeoutMs, maxToolTimeoutMs } from './host/tool.js';
export type {
  Tool,
  ToolDefinition,
  ResourceAwareToolDefinition,
  ExclusiveToolDefinition,
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
  ResourceContent,
  ToolProgress,
  TimeoutMs,
} from './host/tool.js';
export type { PreparedCall, ToolCall } from './host/prepared-call.js';
export { imageFromBase64, imageFromBytes, summarizeImages, type ImageSummary } from './host/content.js';
export { Workspace, ResolvedPath, type PathScope } from './host/workspace.js';
export { Policy, type PolicyDecision, type PolicyEvaluation, type PolicyReason, type PolicyRules } from './host/policy.js';
export { parseRule, type Rule } from './host/rules.js';
export { ToolRegistry } from './host/registry.js';
export { RhoError, ToolError, HostError, toolErrorKinds, hostErrorKinds, type ToolErrorKind, type HostErrorKind, type ErrorKind } from './host/errors.js';
export { exitCodes, exitCodeOfError, exitCodeOfRun, type ExitCode } from './host/exit-codes.js';
export type { CapabilityRequest, CapabilityClass } from './host/capability.js';
export { describeRequest, grantingRule } from './host/capability.js';
export type { Approver, ApprovalAnswer, ApprovalRequest, Decider } from './host/approval.js';
export type { AuthorizationSubject } from './host/denials.js';
export type { ScriptedApprovals, ScriptedAnswer, ScriptedDecision } from './host/authorization.js';
export type { PreToolGate, GateInput, GateAnswer } from './host/gates.js';
export * from './host/hooks/index.js';
export {
  createHostInput,
  userResponse,
  timeoutFallbackResponse,
  questionnaireSchema,
  questionTypes,
  questionnaireLimits,
  type Questioner,
  type HostInput,
  type HostInputRequest,
  type HostInputResponse,
  type HostInputSource,
  type Question,
  type QuestionType,
  type Answer,
  type RawQuestion,
  type RawQuestionnaire,
  type TimeoutFallback,
} from './host/host-input.js';
export {
  runEventSchema,
  hostEventSchema,
  stepStatuses,
  type RunEvent,
  type HostEvent,
  type StepStatus,
  type StepError,
  type AuditRecord,
} from './host/events.js';
export type { RunHooks, HookDeclarations, RunHooksFactory } from './host/run-observer.js';
export type { ResourceAccess, Resource } from './host/resources.js';
export { shared, exclusive, opaqueKey } from './host/resources.js';
export type { Declaration } from './host/scheduler.js';
export { builtinTools } from './tools/index.js';
/** Confining the processes a library host starts: probe the sandbox once, pass the status as `environment.sandbox`. */
export { probeSandbox, type SandboxProbeOptions } from './tools/process/sandbox/probe.js';
/** The filtering proxy through which confined processes reach `network(HOST)` hosts: pass it as `networkProxy`, close it after `dispose()`. */
export { RunNetworkProxy } from './tools/process/network-proxy/run-proxy.js';
export { sandboxModes, type SandboxMode, type SandboxStatus } from './host/confinement/index.js';
