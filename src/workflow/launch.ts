import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Approver } from '../host/approval.js';
import type { ScriptedDecision } from '../host/authorization.js';
import type { EnvMode } from '../host/capability.js';
import { HostError } from '../host/errors.js';
import { SecretMasker } from '../host/masking.js';
import type { PreToolGate } from '../host/gates.js';
import type { Questioner } from '../host/host-input.js';
import { ToolRegistry } from '../host/registry.js';
import type { CallFinishedListener, ToolHost } from '../host/tool-host.js';
import { buildHost, type HostSettings } from './build-host.js';
import { builtinTools } from '../tools/index.js';
import type { RunEvent } from '../host/events.js';
import { evaluateDeep, type ExpressionContext } from './expressions/index.js';
import { parseInputs } from './inputs.js';
import { compileWithServerTools } from './extensions/server-steps.js';
import { startDeclaredServers } from './extensions/start-servers.js';
import type { DeclaredServer } from './extensions/tool-sources.js';
import { loadWorkflowFile } from './load.js';
import { formatProblem } from './problems.js';
import type { CompiledWorkflow } from './model.js';
import { runWorkflow, type RunSummary } from './runner.js';
import type { ProcessEnvSetting } from './schema.js';

/** Shortest secret value rho accepts: masking a shorter one would hide ordinary text. */
export const minSecretLength = 4;

/** Everything a front end decides about one run; the CLI fills it from flags. */
export interface LaunchOptions {
  file: string;
  /** Directory relative paths on the command line are resolved against. */
  cwd: string;
  /** `--workspace`; overrides the file's `workspace:`. */
  workspace?: string;
  maxParallel?: number;
  inputs: readonly string[];
  rules: { allow: readonly string[]; ask: readonly string[]; deny: readonly string[] };
  approve: readonly string[];
  yes: boolean;
  /** The environment rho was started with: source of secrets and of inherited process variables. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  approver?: Approver;
  /** Receives every decision `--approve`/`--yes` made, so the output can echo it. */
  onScriptedDecision?: (decision: ScriptedDecision) => void;
  questioner?: Questioner;
  gates?: readonly PreToolGate[];
  signal: AbortSignal;
  /** Hook programs (or any other gate and observer) for this run. */
  hooks?: RunHooksFactory;
  /** Shows one line to the person running rho (tools left out, what the run's end had to stop). */
  warn?(line: string): void;
  /** Every event passes through it before `emit`; the CLI shares it with its other outputs. */
  masker?: SecretMasker;
  emit(event: RunEvent): void;
}

export function builtinRegistry(): ToolRegistry {
  return new ToolRegistry(builtinTools());
}

/** Values of the workflow's declared secrets, refused when missing or too short to mask. */
export function readSecrets(names: readonly string[], hostEnv: LaunchOptions['hostEnv']): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const name of names) {
    const value = hostEnv[name];
    if (value === undefined) throw new HostError('usage', `secret ${name} is declared by the workflow but not set in the environment`);
    if (value.length < minSecretLength) {
      throw new HostError('usage', `secret ${name} is shorter than ${minSecretLength} characters and cannot be masked safely`);
    }
    secrets[name] = value;
  }
  return secrets;
}

function processEnvMode(raw: ProcessEnvSetting | undefined): EnvMode {
  if (raw === undefined || raw === 'inherit') return { mode: 'inherit' };
  if (raw === 'empty') return { mode: 'empty' };
  if ('inherit_except' in raw) return { mode: 'inherit_except', names: raw.inherit_except };
  return { mode: 'inherit_only', names: raw.inherit_only };
}

/** Builds the host a workflow runs in: workspace, policy (file rules joined by flag rules), tools. */
export function createHost(
  workflow: CompiledWorkflow,
  options: Omit<LaunchOptions, 'emit' | 'signal' | 'file' | 'inputs'> & Pick<HostSettings, 'redact' | 'onWarning' | 'onCallFinished'>,
  tools: ToolRegistry,
  processVariables: Readonly<Record<string, string>> = {},
) {
  const file = workflow.file;
  const root = options.workspace
    ? path.resolve(options.cwd, options.workspace)
    : file.workspace
      ? path.resolve(workflow.source.directory, file.workspace)
      : options.cwd;
  return buildHost({
    ...options,
    root,
    grantedRoots: (file.policy?.granted_roots ?? []).map((dir) => path.resolve(workflow.source.directory, dir)),
    rules: {
      allow: [...(file.policy?.allow ?? []), ...options.rules.allow],
      ask: [...(file.policy?.ask ?? []), ...options.rules.ask],
      deny: [...(file.policy?.deny ?? []), ...options.rules.deny],
    },
    secretNames: file.secrets ?? [],
    processEnv: processEnvMode(file.policy?.process_env),
    processVariables,
    tools,
  });
}

/** What a front end plugs into a run to gate and watch it (the CLI's hook programs). */
export interface RunHooks {
  gates: readonly PreToolGate[];
  /** Every run event, after masking. Must return at once. */
  observeRun(event: RunEvent): void;
  /** Every call that finished, with the first request it authorized. Must return at once. */
  callFinished: CallFinishedListener;
  /** Called once the run is over, to let observers drain. */
  finish(): Promise<void>;
}

/** Builds a run's hooks once its workflow is known (the workflow may declare `hooks:`). */
export type RunHooksFactory = (workflow: CompiledWorkflow, runId: string) => Promise<RunHooks>;

/** A validated workflow with everything resolved that a run (or a plan) needs. */
export interface OpenedWorkflow {
  workflow: CompiledWorkflow;
  host: ToolHost;
  inputs: Record<string, string | number | boolean>;
  secrets: Record<string, string>;
  env: Record<string, string>;
  maxParallel: number;
  /** MCP servers the workflow declares; a run starts them, a plan does not. */
  servers: readonly DeclaredServer[];
  runId: string;
  hooks: RunHooks | undefined;
  /** Masks the run's secrets in everything it reports. */
  masker: SecretMasker;
}

/** Loads and validates a workflow file and builds its host. Invalid files and bad options throw. */
export async function openWorkflow(options: Omit<LaunchOptions, 'emit' | 'signal'>): Promise<OpenedWorkflow> {
  const { workflow, extensions } = await loadWorkflowFile(options.file, builtinRegistry());
  for (const warning of extensions.warnings) options.warn?.(formatProblem(warning));
  const inputs = parseInputs(options.inputs, workflow.file.inputs ?? {});
  const secrets = readSecrets(workflow.file.secrets ?? [], options.hostEnv);
  const maxParallel = options.maxParallel ?? workflow.file.max_parallel ?? 1;
  const runId = randomUUID();
  const hooks = options.hooks ? await options.hooks(workflow, runId) : undefined;
  const gates = [...(options.gates ?? []), ...(hooks?.gates ?? [])];
  const envContext: ExpressionContext = { inputs, steps: {}, env: {}, secrets, run: { failed: false, cancelled: false } };
  const env = Object.fromEntries(
    Object.entries(workflow.file.env ?? {}).map(([name, value]) => [name, String(evaluateDeep(value, envContext) ?? '')]),
  );
  const masker = options.masker ?? new SecretMasker();
  masker.add(...Object.values(secrets));
  const host = await createHost(
    workflow,
    {
      ...options,
      gates,
      maxParallel,
      redact: (text) => masker.mask(text),
      ...(options.warn && { onWarning: (message: string) => options.warn?.(`rho: ${message}`) }),
      ...(hooks && { onCallFinished: hooks.callFinished }),
    },
    extensions.tools,
    env,
  );
  return { workflow, host, inputs, secrets, env, maxParallel, servers: extensions.servers, runId, hooks, masker };
}

/** Loads, validates and runs a workflow file. Invalid files and bad options throw before anything runs. */
export async function launchWorkflow(options: LaunchOptions): Promise<RunSummary> {
  const { workflow, host, inputs, secrets, env, servers, runId, hooks, masker } = await openWorkflow(options);
  const emit = (event: RunEvent) => {
    const masked = masker.maskDeep(event);
    hooks?.observeRun(masked);
    options.emit(masked);
  };
  const unsubscribe = host.subscribe(emit);
  try {
    const serverWarnings = await startDeclaredServers(host, servers, { source: workflow.source, inputs, secrets, signal: options.signal });
    for (const warning of serverWarnings) options.warn?.(formatProblem(warning));
    const ready = servers.length > 0 ? compileWithServerTools(workflow, host.tools) : workflow;
    // Every step is compiled with its position: the parsed file is not needed while it runs.
    workflow.source.release();
    return await runWorkflow({ host, workflow: ready, inputs, secrets, env, signal: options.signal, runId });
  } finally {
    for (const notice of await host.dispose()) options.warn?.(`rho: ${notice}`);
    unsubscribe();
    await hooks?.finish();
  }
}
