import type { z } from 'zod';
import type { CapabilityClass, CapabilityRequest } from './capability.js';
import type { ImageContent, ResourceContent } from './content.js';
import type { CallConfinement, SandboxStatus } from './confinement/index.js';
import type { ToolError } from './errors.js';
import type { HostInput, HostInputResponse } from './host-input.js';
import type { SecretMasker } from './masking.js';
import type { ResourceAccess } from './resources.js';
import type { SessionState } from './session-state.js';
import type { Workspace } from './workspace.js';

/** `built-in`: ships with rho. `host`: a module the workflow loads (trusted in-process code). `mcp`: a tool of an MCP server (a separate program). */
export type ToolOrigin = 'built-in' | 'host' | 'mcp';
/** `exclusive`: runs alone, a barrier in model order. `resource-aware`: declares what it touches. */
export type ExecutionPolicy = 'exclusive' | 'resource-aware';
export type ExecutionMode = 'sync' | 'async';

export const defaultToolTimeoutMs = 30_000;

export type { ImageContent, ResourceContent } from './content.js';

/**
 * What a successful tool call returns. `text` is the step's `output`, `data` its structured
 * result; images and resources are kept as the tool sent them (see `content.ts`).
 */
export interface ToolOutput {
  text: string;
  data?: unknown;
  images?: readonly ImageContent[];
  resources?: readonly ResourceContent[];
  /** Presentation values (diffs, summaries): never used to authorize anything. */
  metadata?: Readonly<Record<string, unknown>>;
}

export interface ToolProgress {
  message: string;
  stream?: 'stdout' | 'stderr';
}

/** Facts about the host that tools may use: rho's `src/host` never reads the process's globals. */
export interface HostEnvironment {
  /** The environment a child process may inherit from (already scrubbed of nothing: tools scrub). */
  env: Readonly<Record<string, string | undefined>>;
  /** Names of `secrets:` the workflow passes to processes. */
  secretNames: readonly string[];
  /** Default environment mode for processes (the workflow's `policy.process_env`). */
  processEnv: import('./capability.js').EnvMode;
  /** Variables every process gets, set as a step's own `env` is (the workflow's `env:`); a step's `env` wins. */
  processVariables?: Readonly<Record<string, string>>;
  /**
   * The run's secret values. Output a tool cuts, slices or keeps (a process's stdout and stderr)
   * is masked with it at the source, before any cut could split a secret; events are masked again.
   */
  masker?: SecretMasker;
  /** Whether processes are confined, as probed once for the run; processes run unconfined when absent. */
  sandbox?: SandboxStatus;
  /** The user's home directories (`$HOME`, the account's): hidden from confined processes unless a rule grants them. */
  homeDirectories?: readonly string[];
  /** The running user's home: what `~` stands for in paths (a step's `writes:`), and where toolchains and caches are looked for. */
  home?: string;
}

/** Context available while a call is prepared: resolution only, no side effects. */
export interface PrepareContext {
  callId: string;
  stepId: string | undefined;
  workspace: Workspace;
  host: HostEnvironment;
  signal: AbortSignal;
  /** The per-call wall limit the host will enforce (step `timeout` or the tool's default). */
  timeoutMs: number;
  /** State shared by the calls of one run (background processes); absent on hosts without runs. */
  session?: SessionState;
  /** How the processes this call starts are confined (the policy's plan, narrowed by the call's `writes`). */
  confinement?: CallConfinement;
}

/** Context for executing an authorized call: it has no way to authorize anything further. */
export interface ExecuteContext {
  callId: string;
  stepId: string | undefined;
  workspace: Workspace;
  host: HostEnvironment;
  signal: AbortSignal;
  timeoutMs: number;
  /** State shared by the calls of one run (background processes); absent on hosts without runs. */
  session?: SessionState;
  progress(update: ToolProgress): void;
  /**
   * Whether a path met while walking an authorized directory tree is still kept back by a deny
   * or ask read rule; walks skip such paths (a tree read is authorized as one request). A file with
   * more than one name (`links`) is withheld whenever such rules name paths, as a read of it is.
   */
  withheld(absolutePath: string, links?: number): boolean;
  /** Ask a person (or the scripted answers) questions; time spent here does not count against the timeout. */
  ask(input: HostInput): Promise<HostInputResponse>;
}

/** Context for an exclusive tool that authorizes as it goes. */
export interface ToolContext extends ExecuteContext {
  authorize(request: CapabilityRequest): Promise<void>;
}

/** The result of preparing a resource-aware call: everything it will need, declared up front. */
export interface PreparedExecution {
  requests: readonly CapabilityRequest[];
  resources: readonly ResourceAccess[];
  /** One short line for progress displays (never used to authorize). */
  summary?: string;
  /** How the process the call starts will be confined (for plans); absent for calls that start none. */
  confinement?: CallConfinement;
  execute(ctx: ExecuteContext): Promise<ToolOutput>;
}

interface ToolDefinitionBase<S extends z.ZodType> {
  name: string;
  description: string;
  /** Strict zod schema of the arguments: the single source of validation, types and JSON Schema. */
  schema: S;
  /** The shape of a result's `data`, when the tool declares it (shown by `rho tools NAME`; references are checked against it). */
  data?: z.ZodType;
  origin?: ToolOrigin;
  /** Capability classes the tool enforces (inspectable metadata, not a sandbox). */
  classes?: readonly CapabilityClass[];
  mode?: ExecutionMode;
  timeoutMs?: number;
  /** Results bring in content from outside the workspace (web pages, issues, mail): treat them as untrusted input. */
  untrustedContent?: boolean;
  /** Checks the tool works, without side effects outside the given temp dir. */
  selftest?(tempDir: string): Promise<void>;
}

export interface ResourceAwareToolDefinition<S extends z.ZodType> extends ToolDefinitionBase<S> {
  executionPolicy: 'resource-aware';
  prepare(args: z.infer<S>, ctx: PrepareContext): Promise<PreparedExecution>;
}

export interface ExclusiveToolDefinition<S extends z.ZodType> extends ToolDefinitionBase<S> {
  executionPolicy?: 'exclusive';
  run(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutput>;
}

export type ToolDefinition<S extends z.ZodType = z.ZodType> = ResourceAwareToolDefinition<S> | ExclusiveToolDefinition<S>;

/** A registered tool with every default filled in. */
export type Tool<S extends z.ZodType = z.ZodType> = ToolDefinition<S> & {
  origin: ToolOrigin;
  classes: readonly CapabilityClass[];
  executionPolicy: ExecutionPolicy;
  mode: ExecutionMode;
  timeoutMs: number;
};

export function defineTool<S extends z.ZodType>(definition: ResourceAwareToolDefinition<S>): Tool<S>;
export function defineTool<S extends z.ZodType>(definition: ExclusiveToolDefinition<S>): Tool<S>;
export function defineTool<S extends z.ZodType>(definition: ToolDefinition<S>): Tool<S> {
  return {
    ...definition,
    origin: definition.origin ?? 'host',
    classes: definition.classes ?? [],
    executionPolicy: definition.executionPolicy ?? 'exclusive',
    mode: definition.mode ?? 'sync',
    timeoutMs: definition.timeoutMs ?? defaultToolTimeoutMs,
  } as Tool<S>;
}

import type { ToolStatus } from './events.js';

export type { ToolStatus };

interface ToolResultBase {
  callId: string;
  tool: string;
  durationMs: number;
}

/**
 * The outcome of one call; only host faults throw. A success always has its output; any other
 * status has its typed error (and, for a tool that reports what it did before failing, output).
 */
export type ToolResult =
  | (ToolResultBase & { status: 'success'; output: ToolOutput; error?: undefined })
  | (ToolResultBase & { status: Exclude<ToolStatus, 'success'>; error: ToolError; output?: ToolOutput });
