import { randomUUID } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { EnvMode } from '../host/capability.js';
import { describeUnconfined, type SandboxMode, type SandboxStatus } from '../host/confinement/index.js';
import { HostError } from '../host/errors.js';
import { SecretMasker } from '../host/masking.js';
import type { EventListener, ToolHost } from '../host/tool-host.js';
import type { HookSandbox, RunHooks, RunHooksFactory } from '../host/run-observer.js';
import { buildHost, type HostConfig, type HostPorts } from './build-host.js';
import type { RunChoices } from './run-choices.js';
import { builtinRegistry } from './builtin-registry.js';
import { distrustWritableProgram, probeSandbox, type SandboxProbeOptions } from '../tools/process/sandbox/probe.js';
import type { OutputLogs, OutputOptions } from '../host/step-output.js';
import { evaluateDeep, type ExpressionContext } from './expressions/index.js';
import { parseInputs, type InputValue } from './inputs.js';
import { parseMatrixFilter } from './matrix.js';
import { taskArgumentEntries, taskParameters } from './task-parameters.js';
import { runContextOf, type RunContext } from './run-context.js';
import { RefusedSteps, serverStepProblems, stepsOf } from './extensions/server-steps.js';
import { checkScriptedAnswerIds } from './question-ids.js';
import { startDeclaredServers, type ServerStartOutcome } from './extensions/start-servers.js';
import type { DeclaredServer } from './extensions/tool-sources.js';
import type { ModuleLoading } from './extensions/load-extensions.js';
import { loadWorkflowFile } from './load.js';
import type { ParseCachePlace } from './parse-cache.js';
import { workspaceOf } from './workspace-root.js';
import { checkedTaskNames } from './task-checks.js';
import { formatProblem, InvalidWorkflowError, type Problem } from './problems.js';
import { deadFileRuleWarnings, deadFlagRuleWarnings, namesServer, widerFlagRuleWarnings } from './rule-warnings.js';
import type { CompiledWorkflow } from './model.js';
import { runWorkflow, type RunSummary } from './runner.js';
import type { ProcessEnvSetting } from './schema.js';
import { UpToDateChecks, type CheckAuthorizer } from './up-to-date/checks.js';
import { parseRemoteCacheSettings } from './up-to-date/remote/config.js';
import type { RemoteCache } from './up-to-date/remote/remote-cache.js';
import { homeDirectories, runningUserHome } from './user-home.js';
import { expandHomePath } from '../host/home-path.js';
import { StateFile, stateFileName, unkeptState } from './up-to-date/state-file.js';
import { newDigestKey } from '../host/keyed-digest.js';
import type { PrivateStore } from './private/store.js';

/** Shortest secret value rho accepts: masking a shorter one would hide ordinary text. */
export const minSecretLength = 4;

/** What a front end plugs into a run: the host's ports, its hooks, and where lines for a person go. */
export interface RunPorts extends Omit<HostPorts, 'redact' | 'onWarning' | 'observer' | 'output'> {
  /**
   * How much of each step's output the events carry (bytes; 10 MiB when absent), and the logs
   * that keep all of it: opened for the run's canonical workspace root once the file is valid.
   */
  output?: { limitBytes?: number; openLogs?(workspaceRoot: string): Promise<OutputLogs | undefined> };
  /** Hook programs (or any other gate and observer) for this run. */
  hooks?: RunHooksFactory;
  /** Shows one line to the person running rho (tools left out, what the run's end had to stop). */
  warn?(line: string): void;
  /** Masks the run's secrets in everything it reports; the CLI shares it with its other outputs. */
  masker?: SecretMasker;
  /** Decides whether processes are confined (tests inject one); by default the sandbox is probed. */
  probeSandbox?: (options: SandboxProbeOptions) => Promise<SandboxStatus>;
  /** Ids the questioner has answers for ahead of time, with where each came from: each must be a question the workflow asks. */
  scriptedAnswers?: readonly { id: string; origin: string }[];
  /** rho's own directories and key: where up-to-date records are kept, and what no step may touch. Without it nothing is kept. */
  privateStore?: PrivateStore;
  /** Where parses of workflow files are kept between runs; none: the file is parsed every time. */
  parseCache?: ParseCachePlace;
  /**
   * Decides, once the file is loaded and valid and before anything else, whether a run of it may
   * go on; throws to refuse (`--watch` refuses a workflow whose authority is not the one it started with).
   */
  admitWorkflow?: (workflow: CompiledWorkflow) => void;
}

/** One run as a front end asks for it: the file, its choices (parsed once), and its ports. */
export interface OpenOptions {
  file: string;
  /** Stops reading the workflow's env files (a run's signal). */
  signal?: AbortSignal;
  /** Directory relative paths on the command line are resolved against. */
  cwd: string;
  choices: RunChoices;
  ports: RunPorts;
}

export interface LaunchOptions extends OpenOptions {
  signal: AbortSignal;
  /**
   * Every event of the run, as the host emits it: the front end masks it on its way out
   * (`ports.masker` holds the run's secrets). A promise it returns holds back the next event (`EventListener`).
   */
  emit: EventListener;
}

/** Values of the workflow's declared secrets, refused when missing or too short to mask. */
export function readSecrets(names: readonly string[], hostEnv: HostPorts['hostEnv']): Record<string, string> {
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
  if (raw === 'inherit_all' || raw === 'empty') return { mode: raw };
  if ('inherit_except' in raw) return { mode: 'inherit_except', names: raw.inherit_except };
  return { mode: 'inherit_only', names: raw.inherit_only };
}

/** The primary workspace root as given: `--workspace`, else the file's `workspace:`, else the file's own directory. */
function workspaceRoot(workflow: CompiledWorkflow, choices: RunChoices, cwd: string): string {
  return workspaceOf(workflow.source.directory, workflow.file.workspace, { flag: choices.workspace, cwd });
}

/** The host variables `host_env:` names that are set (credential names were refused at validation). */
function hostVariables(names: readonly string[], hostEnv: HostPorts['hostEnv']): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const name of names) {
    const value = hostEnv[name];
    if (value !== undefined) variables[name] = value;
  }
  return variables;
}

/**
 * Whether a run confines its processes, probed once. `required` without a working sandbox is a
 * usage error, so nothing runs. A sandbox program under `writableRoots` (the workspace and the
 * granted roots) is not trusted. `started` is a probe begun before the mode was known (it runs
 * while the workflow loads); its answer holds for `auto` and `required` alike.
 */
export async function decideSandbox(
  mode: SandboxMode,
  options: { hostEnv: HostPorts['hostEnv']; probeSandbox?: RunPorts['probeSandbox'] },
  writableRoots: readonly string[],
  started?: Promise<SandboxStatus>,
): Promise<SandboxStatus> {
  const probed =
    mode !== 'off' && started !== undefined
      ? { ...(await started), mode }
      : await (options.probeSandbox ?? probeSandbox)({ mode, hostEnv: options.hostEnv, homes: homeDirectories(options.hostEnv) });
  const status = distrustWritableProgram(probed, writableRoots);
  if (mode === 'required' && !status.confined) {
    throw new HostError('usage', `sandbox: required, but ${describeUnconfined(status)}; nothing was run`);
  }
  return status;
}

/** How hook programs outside a workflow run (`rho hooks test`, `rho invoke --hooks`) are confined: as in an `auto` run. */
export async function standaloneHookSandbox(
  hostEnv: HostPorts['hostEnv'],
  privatePaths: readonly string[],
  mode: SandboxMode = 'auto',
  writableRoots: readonly string[] = [],
): Promise<HookSandbox> {
  return { status: await decideSandbox(mode, { hostEnv }, writableRoots), homeDirectories: homeDirectories(hostEnv), privatePaths };
}

/** The directories `policy.granted_roots` names, absolute (relative ones start at the file's directory, `~` is `home`). */
function grantedRootsOf(workflow: CompiledWorkflow, home: string | undefined): string[] {
  return (workflow.file.policy?.granted_roots ?? []).map((dir) => path.resolve(workflow.source.directory, expandHomePath(dir, home)));
}

/**
 * The host configuration of a run: the file's settings with the front end's choices over them;
 * `~` in paths is `home` (validation refused it where there is none).
 */
export function resolveHostConfig(
  workflow: CompiledWorkflow,
  choices: RunChoices,
  cwd: string,
  processVariables: Readonly<Record<string, string>>,
  home: string | undefined,
): HostConfig {
  const file = workflow.file;
  const root = workspaceRoot(workflow, choices, cwd);
  return {
    root,
    grantedRoots: grantedRootsOf(workflow, home),
    home,
    ...(file.policy?.caches && { caches: file.policy.caches }),
    rules: {
      allow: [...(file.policy?.allow ?? []), ...choices.rules.allow],
      // A called file's rules only add restrictions (its ask rules ask only what the run allows); they hold for the whole run, as every rule does.
      ask: [...(file.policy?.ask ?? []), ...choices.rules.ask],
      deny: [...(file.policy?.deny ?? []), ...workflow.calledRules.deny, ...choices.rules.deny],
      askIfAllowed: workflow.calledRules.ask,
    },
    approve: choices.approve,
    yes: choices.yes,
    secretNames: file.secrets ?? [],
    envGrants: { policy: file.policy?.env ?? [], declared: [...(file.secrets ?? []), ...(file.host_env ?? [])] },
    processEnv: processEnvMode(file.policy?.process_env),
    processVariables,
    maxParallel: choices.maxParallel ?? file.max_parallel ?? 1,
  };
}

/** The host's ports of a run: the front end's, with the hooks' gates and observer and the run's masking. */
function hostPortsOf(ports: RunPorts, hooks: RunHooks | undefined, masker: SecretMasker, output: OutputOptions | undefined): HostPorts {
  return {
    ...ports,
    gates: [...(ports.gates ?? []), ...(hooks?.gates ?? [])],
    redact: (text) => masker.mask(text),
    masker,
    onWarning: ports.warn && ((message: string) => ports.warn?.(`rho: ${message}`)),
    observer: hooks?.observer,
    output,
  };
}

/**
 * A host for calls outside any workflow (`rho invoke`): the choices' workspace (the current
 * directory by default) and rules alone, the built-in tools, and the front end's ports and hooks,
 * confined as a run with `policy.sandbox` left at its default would be.
 */
export async function openToolHost(options: Omit<OpenOptions, 'file'>): Promise<{ host: ToolHost; hooks: RunHooks | undefined }> {
  const { ports, choices } = options;
  const root = path.resolve(options.cwd, choices.workspace ?? '.');
  const homes = homeDirectories(ports.hostEnv);
  const privatePaths = ports.privateStore?.paths ?? [];
  const sandbox = await decideSandbox(choices.sandbox ?? 'auto', ports, [root]);
  const declared = { inline: undefined, directory: options.cwd, secretNames: [], sandbox: { status: sandbox, homeDirectories: homes, privatePaths } };
  const hooks = await ports.hooks?.(declared, randomUUID());
  const config: HostConfig = {
    root,
    grantedRoots: [],
    rules: choices.rules,
    approve: choices.approve,
    yes: choices.yes,
    secretNames: [],
    envGrants: { policy: [], declared: [] },
    processEnv: { mode: 'inherit' },
    processVariables: {},
    maxParallel: 1,
    sandbox,
    homeDirectories: homes,
    home: runningUserHome(ports.hostEnv),
    privatePaths,
  };
  const host = await buildHost(config, hostPortsOf(ports, hooks, ports.masker ?? new SecretMasker(), undefined), builtinRegistry());
  return { host, hooks };
}

/** A validated workflow with everything resolved that a run (or a plan) needs. */
export interface OpenedWorkflow {
  workflow: CompiledWorkflow;
  host: ToolHost;
  inputs: Record<string, InputValue>;
  secrets: Record<string, string>;
  env: Record<string, string>;
  maxParallel: number;
  rho: RunContext;
  /** MCP servers the workflow declares; a run starts them, a plan does not. */
  servers: readonly DeclaredServer[];
  runId: string;
  hooks: RunHooks | undefined;
  /** Masks the run's secrets in everything it reports. */
  masker: SecretMasker;
  /** Whether the run's processes are confined. */
  sandbox: SandboxStatus;
  /** rho's own directories and key, when it has them. */
  privateStore: PrivateStore | undefined;
}

/**
 * Loads and validates a workflow file and builds its host. Invalid files and bad options throw.
 * With `skip` (a plan), no tool module is imported, and what could not be inspected is noted.
 */
export async function openWorkflow(options: OpenOptions, loading: ModuleLoading): Promise<OpenedWorkflow> {
  const { ports, choices } = options;
  // The probe starts the sandbox once; it runs while the file is loaded, unless the flag turns the sandbox off.
  const homes = homeDirectories(ports.hostEnv);
  const probing = choices.sandbox === 'off' ? undefined : (ports.probeSandbox ?? probeSandbox)({ mode: 'auto', hostEnv: ports.hostEnv, homes });
  probing?.catch(() => undefined);
  const home = runningUserHome(ports.hostEnv);
  const { workflow, extensions, warnings, notes } = await loadWorkflowFile(options.file, builtinRegistry(), loading, {
    task: choices.task,
    matrixFilter: parseMatrixFilter(choices.matrix),
    workspace: { flag: choices.workspace, cwd: options.cwd },
    policyFlags: { allow: choices.rules.allow, ask: choices.rules.ask, sandbox: choices.sandbox },
    homeDirectory: home ?? null,
    parseCache: ports.parseCache,
  });
  ports.admitWorkflow?.(workflow);
  for (const warning of warnings) ports.warn?.(formatProblem(warning));
  for (const line of widerFlagRuleWarnings(choices.rules.allow)) ports.warn?.(line);
  if (loading === 'skip') for (const note of notes) ports.warn?.(formatProblem(note));
  const commandLine = { words: choices.arguments, passThrough: choices.passThrough, inputs: choices.inputs, invocation: choices.invocation, task: workflow.task ?? '(default)' };
  const entries = taskArgumentEntries(commandLine, taskParameters(workflow.parameters), workflow.inputs);
  const inputs = parseInputs(entries.inputs, workflow.inputs, entries.passThrough);
  checkScriptedAnswerIds(workflow, ports.scriptedAnswers ?? []);
  const runId = randomUUID();
  // The --sandbox flag wins over the file's policy.sandbox; both default to auto.
  const given = workspaceRoot(workflow, choices, options.cwd);
  const sandbox = await decideSandbox(choices.sandbox ?? workflow.file.policy?.sandbox ?? 'auto', ports, [given, ...grantedRootsOf(workflow, home)], probing);
  const privatePaths = ports.privateStore?.paths ?? [];
  const declared = {
    inline: workflow.file.hooks,
    directory: workflow.source.directory,
    secretNames: workflow.file.secrets ?? [],
    sandbox: { status: sandbox, homeDirectories: homes, privatePaths },
  };
  const hooks = ports.hooks ? await ports.hooks(declared, runId) : undefined;
  // Canonical as the host will make it, so env: sees the same rho.workspace as the steps.
  const context = runContextOf({
    workspace: await realpath(given).catch(() => given),
    workflowDir: workflow.source.directory,
    cwd: options.cwd,
    task: workflow.task,
    hostEnv: ports.hostEnv,
  });
  const fromHost = hostVariables(workflow.file.host_env ?? [], ports.hostEnv);
  const masker = ports.masker ?? new SecretMasker();
  const logs = await ports.output?.openLogs?.(context.workspace);
  const output = ports.output && { limitBytes: ports.output.limitBytes, logs };
  // Filled below, once the env files are read through the host, before any call runs.
  const env: Record<string, string> = {};
  const config = { ...resolveHostConfig(workflow, choices, options.cwd, env, home), sandbox, homeDirectories: homes, privatePaths };
  const hostPorts = hostPortsOf(ports, hooks, masker, output);
  const host = await buildHost(config, hostPorts, extensions.tools);
  const envFile = workflow.file.env_file;
  // The env file reader (and dotenv) loads only for a workflow that has env files.
  const fromFiles =
    envFile === undefined
      ? {}
      : await (await import('./env-files.js')).loadEnvFiles(typeof envFile === 'string' ? [envFile] : envFile, host, options.signal ?? new AbortController().signal);
  // A secret comes from rho's environment or, failing that, from an env file; either way it is masked.
  const secrets = readSecrets(workflow.file.secrets ?? [], { ...fromFiles, ...definedOnly(ports.hostEnv) });
  masker.add(...Object.values(secrets));
  // host_env: first, env files over it, env: over both.
  Object.assign(env, fromHost, fromFiles);
  const envContext: ExpressionContext = { inputs, steps: {}, env: { ...env }, secrets, extra: { rho: context }, run: { failed: false, cancelled: false } };
  for (const [name, value] of Object.entries(workflow.file.env ?? {})) env[name] = String(evaluateDeep(value, envContext) ?? '');
  const rho = { ...context, workspace: host.workspace.root };
  const { privateStore } = ports;
  return { workflow, host, inputs, secrets, env, maxParallel: config.maxParallel, rho, servers: extensions.servers, runId, hooks, masker, sandbox, privateStore };
}

function definedOnly(variables: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(variables).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The up-to-date checks of a run of an opened workflow. */
export function upToDateChecksOf(
  opened: OpenedWorkflow,
  force: RunChoices['force'],
  warn: (line: string) => void,
  authorize: CheckAuthorizer = (subject, request, signal) => opened.host.authorizeRequest(subject, request, signal),
  remote?: RemoteCache,
): UpToDateChecks {
  const { host, workflow } = opened;
  const tasks = checkedTaskNames(workflow);
  const forcible = new Set([...workflow.steps.map((step) => step.id), ...tasks]);
  const unknown = Array.isArray(force) ? force.filter((id) => !forcible.has(id)) : [];
  if (unknown.length > 0) throw new HostError('usage', `--force-step: no step ${unknown.join(', ')} in ${workflow.file.name}`);
  const relative = path.relative(host.workspace.root, workflow.source.file);
  const kept = opened.privateStore;
  if (!kept && (tasks.length > 0 || workflow.steps.some((step) => step.sources !== undefined)))
    warn('rho: the up-to-date state is not kept: rho has no state directory (set XDG_STATE_HOME, or HOME); every step with sources runs');
  return new UpToDateChecks({
    workspace: host.workspace,
    authorize,
    withheld: (absolute) => host.withholdsRead(absolute),
    workflowKey: relative.startsWith('..') || path.isAbsolute(relative) ? workflow.source.file : relative.split(path.sep).join('/'),
    env: opened.env,
    secrets: opened.secrets,
    force,
    store: kept ? new StateFile(path.join(kept.workspaceDirectory(host.workspace.root), stateFileName), kept.key, host.workspace.root) : unkeptState,
    // Nothing is kept without a store: a key of this run alone keys what is compared within it.
    digestKey: kept?.key ?? newDigestKey(),
    platform: { os: opened.rho.os, arch: opened.rho.arch },
    ...(remote && { remote }),
    warn,
  });
}

/**
 * The shared cache of a run, when the workflow's `remote_cache:` and Turborepo's variables name
 * one: its token and signature key are masked in everything the run reports.
 */
export async function remoteCacheOf(opened: OpenedWorkflow, hostEnv: HostPorts['hostEnv'], warn: (line: string) => void): Promise<RemoteCache | undefined> {
  const settings = parseRemoteCacheSettings(opened.workflow.file.remote_cache, hostEnv);
  if (!settings) return undefined;
  for (const secret of [settings.token, settings.signatureKey]) if (secret !== undefined && secret.length >= minSecretLength) opened.masker.add(secret);
  const { host } = opened;
  // The client and the tar packer load only for a run that has a cache.
  const [{ RemoteCache }, { TurboCacheClient }] = await Promise.all([import('./up-to-date/remote/remote-cache.js'), import('./up-to-date/remote/turbo-client.js')]);
  return new RemoteCache({
    store: new TurboCacheClient(settings),
    workspace: host.workspace,
    authorize: (subject, request, signal) => host.authorizeRequest(subject, request, signal),
    warn,
  });
}

/** What a run does with each server's start as it ends: the steps its tools refuse, and the warnings now known. */
interface ServerOutcomes {
  /** Servers whose tools decide whether a step's code reads outside content: no step starts before they are checked. */
  checkedFirst: ReadonlyMap<string, { resolve(): void }>;
  /** Problems of steps checked before any step starts: the run is refused when there are any. */
  beforeStart: Problem[];
  refused: RefusedSteps;
  /** Aborted once the run has ended: a start failing after that is not reported. */
  starting: AbortSignal;
  /** Shows a line once. */
  report(line: string): void;
}

/** Checks a workflow's steps and rules against the tools a server brought (or reports why it brought none). */
function serverOutcomeHandler(opened: OpenedWorkflow, flagRules: RunChoices['rules'], outcomes: ServerOutcomes): (outcome: ServerStartOutcome) => void {
  const { workflow, host, servers } = opened;
  const serverNames = servers.map((server) => server.declaration.name);
  const { checkedFirst, beforeStart, refused, report } = outcomes;
  return (outcome) => {
    checkedFirst.get(outcome.name)?.resolve();
    if (outcome.error) {
      // A step calling this server's tools fails with this error; a run that ended first does not report it.
      if (!outcomes.starting.aborted) report(`rho: ${outcome.error.message}`);
      return;
    }
    for (const warning of outcome.warnings) report(formatProblem(warning));
    const targets = { tools: host.tools.list(), pendingNamespaces: host.tools.pendingNamespaces() };
    for (const problem of serverStepProblems(workflow, host.tools, outcome.name, serverNames)) {
      if (checkedFirst.has(outcome.name) && stepsOf(workflow.steps, problem).some((step) => step.checkedWithServers?.includes(outcome.name))) {
        beforeStart.push(problem);
        continue;
      }
      report(formatProblem(problem));
      refused.refuse(workflow.steps, problem);
    }
    for (const warning of deadFileRuleWarnings(workflow.source, workflow.file, targets, namesServer(outcome.name))) report(formatProblem(warning));
    for (const line of deadFlagRuleWarnings(flagRules, targets, namesServer(outcome.name))) report(line);
  };
}

/** Loads, validates and runs a workflow file. Invalid files and bad options throw before anything runs. */
export async function launchWorkflow(options: LaunchOptions): Promise<RunSummary> {
  const opened = await openWorkflow(options, 'import');
  const { workflow, host, inputs, secrets, env, rho, servers, runId, hooks } = opened;
  const unsubscribe = host.subscribe((event) => options.emit(event));
  const warn = (line: string) => options.ports.warn?.(line);
  const serverNames = servers.map((server) => server.declaration.name);
  // Starts still under way when the run ends are stopped: a run that never needed a server does not wait for it.
  const starting = new AbortController();
  const stopStarting = () => starting.abort(options.signal.reason);
  options.signal.addEventListener('abort', stopStarting, { once: true });
  let started: Promise<unknown> = Promise.resolve();
  let upToDate: UpToDateChecks | undefined;
  // Problems found once a server's tools are known (a step's arguments, an untrusted value in a script) keep those steps from running.
  const refused = new RefusedSteps();
  const checkedFirst = new Map<string, { promise: Promise<void>; resolve(): void }>();
  for (const name of new Set(workflow.steps.flatMap((step) => step.checkedWithServers ?? []))) {
    let resolve = () => {};
    const promise = new Promise<void>((done) => (resolve = done));
    checkedFirst.set(name, { promise, resolve });
  }
  const beforeStart: Problem[] = [];
  const reported = new Set<string>();
  const report = (line: string) => {
    if (!reported.has(line)) warn(line);
    reported.add(line);
  };
  try {
    for (const line of deadFlagRuleWarnings(options.choices.rules, { tools: host.tools.list(), pendingNamespaces: serverNames })) warn(line);
    upToDate = upToDateChecksOf(opened, options.choices.force, warn, undefined, await remoteCacheOf(opened, options.ports.hostEnv, warn));
    const onOutcome = serverOutcomeHandler(opened, options.choices.rules, { checkedFirst, beforeStart, refused, starting: starting.signal, report });
    started = startDeclaredServers(host, servers, {
      source: workflow.source,
      inputs,
      secrets,
      signal: starting.signal,
      onOutcome,
      onRelisted: (outcome) => {
        for (const warning of outcome.warnings) report(formatProblem(warning));
      },
    });
    // Every step is compiled with its position: the parsed file is not needed while it runs, once the servers' steps are checked.
    void started.then(() => workflow.source.release());
    await Promise.all([...checkedFirst.values()].map((checked) => checked.promise));
    if (beforeStart.length > 0) throw new InvalidWorkflowError(beforeStart);
    return await runWorkflow({ host, workflow, inputs, secrets, env, rho, signal: options.signal, runId, refusedSteps: refused, upToDate, exitCodeFrom: options.choices.exitCode });
  } finally {
    await upToDate?.save();
    starting.abort();
    await started;
    options.signal.removeEventListener('abort', stopStarting);
    for (const notice of await host.dispose()) warn(`rho: ${notice}`);
    unsubscribe();
    await hooks?.finish();
  }
}
