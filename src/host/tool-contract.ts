import type { CapabilityRequest } from './capability.js';
import type { AudioContent, ImageContent, ResourceContent } from './content.js';
import type { CallConfinement, SandboxStatus } from './confinement/index.js';
import type { HostInput, HostInputResponse } from './host-input.js';
import type { SecretMasker } from './masking.js';
import type { ResourceAccess } from './resources.js';
import type { SessionState } from './session-state.js';
import type { Workspace } from './workspace.js';

// What a tool is given and what it gives back: its contexts, its plan and its output.

/** `built-in`: ships with rho. `host`: defined by the code that embeds the host (a module a workflow loads included): trusted in-process code. `mcp`: a tool of an MCP server (a separate program). */
export type ToolOrigin = 'built-in' | 'host' | 'mcp';
/** `exclusive`: runs alone, a barrier in model order. `resource-aware`: declares what it touches. */
export type ExecutionPolicy = 'exclusive' | 'resource-aware';
/** `async`: a call may run detached when its caller also asks; only a resource-aware tool may declare it. */
export type ExecutionMode = 'sync' | 'async';

export type { AudioContent, ImageContent, ResourceContent } from './content.js';

/**
 * What a successful tool call returns. `text` is the step's `output`, `data` its structured
 * result; images, audio and resources are kept as the tool sent them (see `content.ts`).
 */
export interface ToolOutput {
  text: string;
  data?: unknown;
  images?: readonly ImageContent[];
  audio?: readonly AudioContent[];
  resources?: readonly ResourceContent[];
  /** Presentation values (diffs, summaries): never used to authorize anything. */
  metadata?: Readonly<Record<string, unknown>>;
}

/** Where a call's output came from: a process's stdout or stderr. */
export type OutputStream = 'stdout' | 'stderr';

export interface ToolProgress {
  message: string;
  stream?: OutputStream;
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

/** What every context of a call has. */
interface CallContext {
  callId: string;
  stepId: string | undefined;
  workspace: Workspace;
  host: HostEnvironment;
  signal: AbortSignal;
  /** The per-call wall limit the host enforces (the call's `timeoutMs` or the tool's). */
  timeoutMs: number;
  /** State shared by the calls of one host (background processes). */
  session?: SessionState;
}

/** Context available while a call is prepared: resolution only, no side effects. */
export interface PrepareContext extends CallContext {
  /** How the processes this call starts are confined (the policy's plan, narrowed by the call's `writes`). */
  confinement?: CallConfinement;
}

/** Context for executing an authorized call: it has no way to authorize anything further. */
export interface ExecuteContext extends CallContext {
  progress(update: ToolProgress): void;
  /**
   * What the call prints, as bytes in the order they came (a process's stdout and stderr): the
   * host masks it, keeps it whole in the call's log, and carries its lines in `step_progress`
   * events up to its bound per call (`ToolHostOptions.output`).
   */
  output(stream: OutputStream, chunk: Uint8Array): void;
  /**
   * A promise while the readers of the host's events are too far behind on output they must not
   * lose (`ToolHostOptions.output` with `limitBytes: Infinity`), settled once they have room;
   * otherwise undefined. A tool reading a stream stops reading until it settles, as a pipe's
   * writer waits for its reader.
   */
  outputRoom?(): Promise<void> | undefined;
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
  execute(ctx: ExecuteContext): ToolOutput | Promise<ToolOutput>;
}
