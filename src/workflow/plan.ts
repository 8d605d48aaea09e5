import path from 'node:path';
import { describeRequest, grantingRule, type CapabilityRequest } from '../host/capability.js';
import {
  guardedDirectories,
  resolveConfinementPlan,
  type CallConfinement,
  type FoundToolchain,
  type NetworkConfinement,
  type ResolvedPlan,
  type SandboxStatus,
} from '../host/confinement/index.js';
import type { PreToolGate } from '../host/gates.js';
import type { ToolOrigin } from '../host/tool.js';
import { isHttpServer, type McpServerDeclaration } from '../tools/mcp/server-launch.js';
import type { PolicyDecision } from '../host/policy.js';
import { describeResourceKind, type Resource } from '../host/resources.js';
import { planWaves, type Declaration, type PlanWait } from '../host/scheduler.js';
import { ToolError } from '../host/errors.js';
import { isWithin } from '../host/workspace.js';
import { evaluateDeep, evaluateTemplate, isTruthy, parseTemplate, templateReferences, walkTemplates, type ExpressionContext } from './expressions/index.js';
import { cellId, evaluatedMatrixCells } from './matrix.js';
import { evaluateArguments } from './step-arguments.js';
import type { OpenedWorkflow } from './launch.js';
import type { CompiledStep } from './model.js';
import { enterGroup, entryOf, nestedDelegation, usesGroups, type GroupEntry } from './nested.js';
import { parseStepResources } from './step-resources.js';
import { upToDateChecksOf } from './launch.js';
import type { CacheKey } from './up-to-date/cache-key.js';
import type { CheckVerdict, UpToDateChecks } from './up-to-date/checks.js';
import { taskCheckSubject } from './task-checks.js';
import { stepWait } from './step-wait.js';

export interface PlannedRequest {
  class: string;
  description: string;
  decision: PolicyDecision;
  /** The rule that decided, or undefined for the default deny. */
  rule: string | undefined;
  /** The rule that would grant it, for denials. */
  grant: string;
  /** What the hook gates answered, when they were consulted (`--hooks`) and the policy did not deny. */
  gates?: { decision: 'continue' | 'deny'; hook?: string; reason?: string };
}

export interface PlannedStep {
  id: string;
  tool: string;
  wave: number;
  waitsFor: string[];
  condition: string | undefined;
  /** The `if:` condition's value when it reads only inputs, env, secrets, the matrix and the run's context; undefined when known only at run time. */
  conditionValue?: boolean;
  /** A matrix step: the cells (the steps before it) whose combined status it records. */
  cells: string[] | undefined;
  /** A `uses:` step: the task it runs and the steps of it (before it) whose combined status it records. */
  uses?: { task: string; steps: string[] };
  /** `async: true`: it runs detached, and its result is recorded when it completes. */
  detached: boolean;
  /** How the step was prepared for the plan, or why it could not be. */
  preparation: 'prepared' | 'at_run_time' | 'invalid' | 'skipped' | 'group';
  note: string | undefined;
  /** For a step with `sources:`: whether it would be up to date now, and why not; its key in a shared cache, and what it is made of. */
  upToDate: { verdict: 'yes' | 'no' | 'unknown'; reason: string; cacheKey?: CacheKey } | undefined;
  requests: PlannedRequest[];
  resources: string;
  /** For a step that starts a process: whether it runs confined, where it may write, and its network. */
  confinement: PlannedConfinement | undefined;
}

export interface PlannedConfinement {
  confined: boolean;
  /** Absolute writable roots (files or directory trees), as resolved on disk now, besides its private TMPDIR and its caches. */
  writable: string[];
  /** The caches it may write (`policy.caches`), each with its directories as resolved now. */
  caches: { name: string; paths: string[] }[];
  /** Directories the roots are created, replaced and removed in: anything else left there is removed, and denies the step. */
  checked: string[];
  /** Protected places inside the roots (relative to the workspace where inside it): read-only, and never left created. */
  protected: string[];
  network: string;
  /** Why a launch would be refused as the disk stands now (a writable root a link moves out of what is granted). */
  refused?: string;
  /** Whether it may reach the host's unix sockets (a `unix_socket` rule), as a person reads it. */
  unixSockets: string;
}

export interface WorkflowPlan {
  workflow: string;
  maxParallel: number;
  /** Whether process steps run confined, and if not, why. */
  sandbox: SandboxStatus;
  /** What `~` stands for in the file's paths: the running user's home (undefined: there is none). */
  home: string | undefined;
  /** The toolchains under the home that confined processes may read without a rule. */
  toolchains: FoundToolchain[];
  /** Whether pre_tool_use gates were asked about each request, and how many there are. */
  hooks: { consulted: boolean; gates: number };
  /** The run's task when its own `sources:` make the whole of it one up-to-date check. */
  task?: { name: string; upToDate: NonNullable<PlannedStep['upToDate']> };
  steps: PlannedStep[];
}

/** What a plan says about a process's network. */
export function describeNetwork(network: NetworkConfinement): string {
  switch (network.mode) {
    case 'none':
      return 'none';
    case 'host':
      return 'the host network (an unrestricted network rule)';
    case 'proxy':
      return `only ${network.rules.join(', ')} through rho's proxy (each host decided by the policy)`;
  }
}

function plannedConfinement(confinement: CallConfinement | undefined, workspaceRoot: string): PlannedConfinement | undefined {
  if (!confinement) return undefined;
  let plan: ResolvedPlan | CallConfinement['plan'] = confinement.plan;
  let refused: string | undefined;
  // Resolved as a confined launch resolves it; an unconfined one resolves nothing.
  if (confinement.status.confined) {
    try {
      plan = resolveConfinementPlan(confinement.plan, confinement.home);
    } catch (error) {
      refused = (error as Error).message;
    }
  }
  const shown = (absolute: string) => (isWithin(workspaceRoot, absolute) ? path.relative(workspaceRoot, absolute) : absolute);
  const guarded = confinement.guarded ? guardedDirectories(confinement.plan) : [];
  const open = guarded.filter((directory) => directory.open).map((directory) => directory.path);
  const writable = (place: string) => plan.writable.some((root) => isWithin(root.path, place)) || open.some((directory) => isWithin(directory, place));
  const roots = plan.writable.filter((root) => root.cache === undefined);
  const caches = new Map<string, string[]>();
  for (const root of plan.writable) if (root.cache) caches.set(root.cache, [...(caches.get(root.cache) ?? []), root.path]);
  return {
    confined: confinement.status.confined,
    writable: roots.map((root) => (root.kind === 'tree' ? `${root.path}/**` : root.path)),
    caches: [...caches].map(([name, paths]) => ({ name, paths })),
    checked: guarded.filter((directory) => !directory.open).map((directory) => directory.path),
    protected: plan.protected.filter((place) => writable(place.path)).map((place) => shown(place.path)),
    network: describeNetwork(confinement.plan.network),
    ...(refused !== undefined && { refused }),
    unixSockets: confinement.plan.unixSockets
      ? 'every host unix socket it can see (unix_socket): the ssh agent, Docker, D-Bus, tmux…'
      : 'none (its seccomp filter refuses them; a unix_socket rule opens them)',
  };
}

export interface PlanOptions {
  /** Hook gates to consult about each request the policy does not deny (`rho plan --hooks`). */
  gates?: readonly PreToolGate[];
}

/**
 * What a run would do, without doing it: each step is prepared (resolution only, no side
 * effects) where its arguments are known, its requests are put to the policy alone, and the
 * schedule is simulated.
 */
export async function planWorkflow(opened: OpenedWorkflow, options: PlanOptions = {}): Promise<WorkflowPlan> {
  const { workflow, host } = opened;
  const gates = options.gates;
  const context: ExpressionContext = {
    inputs: opened.inputs,
    steps: {},
    env: opened.env,
    secrets: opened.secrets,
    extra: { rho: opened.rho },
    run: { failed: false, cancelled: false },
  };
  const signal = new AbortController().signal;
  // Inside a nested group, inputs.* are what its uses: step gives, when that is known before the run.
  const groups = usesGroups(workflow.steps);
  const entries = new Map<string, GroupEntry | undefined>();
  const entryOfScope = (scope: string) =>
    entryOf(scope, groups, entries, (group) => (group.argumentsReadSteps || readsSteps(group) ? undefined : enterGroup(group, contextOf(group))));
  const contextOf = (step: CompiledStep): ExpressionContext => {
    const entry = step.scope && entryOfScope(step.scope.id);
    const inputs = step.scope ? (entry?.kind === 'run' ? entry.inputs : {}) : context.inputs;
    return { ...context, inputs, extra: { ...context.extra, ...(step.matrix && { matrix: step.matrix }) } };
  };
  const conditions = workflow.steps.map((step) => (step.scope && entryOfScope(step.scope.id)?.kind !== 'run' ? undefined : decidedCondition(step, contextOf(step))));
  const prepared = await Promise.all(
    workflow.steps.map((step, index) => {
      const entry = step.scope && entryOfScope(step.scope.id);
      if (step.scope && entry?.kind !== 'run') return Promise.resolve(outsideGroup(step.scope.id, entry));
      return prepareForPlan(step, opened, contextOf(step), signal, conditions[index]);
    }),
  );
  const checks = planChecks(opened);
  const upToDate = await Promise.all(workflow.steps.map((step) => planUpToDate(step, checks, contextOf(step), opened, signal)));
  const task = await planTaskUpToDate(opened, checks, signal);
  const schedule = planWaves(
    prepared.map((entry) => entry.declaration),
    opened.maxParallel,
    workflow.steps.map(stepWait),
  );
  const declaredGates = workflow.file.hooks?.pre_tool_use?.length ?? 0;
  const steps = workflow.steps.map((step, index) => ({
    id: step.id,
    tool: step.tool,
    wave: schedule[index]!.wave,
    waitsFor: [
      ...decisiveWaits(schedule[index]!.waitsFor).map((wait) => describeWait(wait, workflow.steps, prepared[index]!.declaration === 'exclusive')),
      ...(schedule[index]!.waitsForSlot ? ['a free slot (max_parallel)'] : []),
    ],
    condition: step.condition === undefined ? undefined : typeof step.condition === 'boolean' ? String(step.condition) : step.condition.source,
    ...(conditions[index] !== undefined && { conditionValue: conditions[index] }),
    cells: step.group?.kind === 'matrix' && !step.group.later ? step.group.members.map((member) => workflow.steps[member]!.id) : undefined,
    ...(step.group?.kind === 'uses' && { uses: { task: step.group.scope.task, steps: step.group.members.map((member) => workflow.steps[member]!.id) } }),
    detached: step.async,
    confinement: plannedConfinement(prepared[index]!.confinement, host.workspace.root),
    ...prepared[index]!.report,
    upToDate: upToDate[index],
    requests: prepared[index]!.requests.map(async (request) => {
      const evaluation = host.evaluatePolicy(request);
      const planned: PlannedRequest = {
        class: request.class,
        description: describeRequest(request),
        decision: evaluation.decision,
        rule: evaluation.rule?.text,
        grant: evaluation.reason === 'outside' ? 'outside' : grantingRule(request),
      };
      if (gates && gates.length > 0 && evaluation.decision !== 'deny')
        planned.gates = await consultGates(gates, step, host.tools.get(step.tool)?.origin ?? 'host', request, evaluation.decision, signal);
      return planned;
    }),
  }));
  return {
    workflow: workflow.file.name,
    maxParallel: opened.maxParallel,
    sandbox: opened.sandbox,
    home: host.environment.home,
    toolchains: [...host.confinementPlan.toolchains],
    hooks: { consulted: gates !== undefined, gates: gates?.length ?? declaredGates },
    ...(task && { task }),
    steps: await Promise.all(steps.map(async (step) => ({ ...step, requests: await Promise.all(step.requests) }))),
  };
}

function readsSteps(step: CompiledStep): boolean {
  return typeof step.condition === 'object' && templateReferences(step.condition).steps.size > 0;
}

/** How a plan shows a step of a nested group that would not run, or whose inputs are known only at run time. */
function outsideGroup(scope: string, entry: GroupEntry | undefined): Awaited<ReturnType<typeof prepareForPlan>> {
  const declaration: Declaration = 'exclusive';
  if (entry === undefined) {
    const note = `the inputs of ${scope} read earlier steps’ results; its steps are prepared when they are ready`;
    return { declaration, requests: [], report: { preparation: 'at_run_time' as const, note, resources: 'known at run time (planned as exclusive)' } };
  }
  if (entry.kind === 'skipped')
    return {
      declaration: [] as Declaration,
      requests: [],
      report: { preparation: 'skipped' as const, note: `${entry.membersReason} for these inputs: it would be skipped`, resources: 'none' },
    };
  return { declaration: [] as Declaration, requests: [], report: { preparation: 'invalid' as const, note: entry.kind === 'failed' ? entry.error.message : '', resources: 'none' } };
}

/** The value of an `if:` that reads no step results or statuses; undefined when it does, or there is none. */
function decidedCondition(step: CompiledStep, context: ExpressionContext): boolean | undefined {
  if (step.condition === undefined) return undefined;
  if (typeof step.condition === 'boolean') return step.condition;
  const references = templateReferences(step.condition);
  if (references.steps.size > 0 || references.statusFunctions) return undefined;
  try {
    return isTruthy(evaluateTemplate(step.condition, context));
  } catch {
    return undefined;
  }
}

/** Asks every gate about one request, as a run would before any approval; the strictest answer wins, a failure denies. */
async function consultGates(
  gates: readonly PreToolGate[],
  step: CompiledStep,
  source: ToolOrigin,
  request: CapabilityRequest,
  policyDecision: 'allow' | 'ask',
  signal: AbortSignal,
): Promise<NonNullable<PlannedRequest['gates']>> {
  const input = Object.freeze({
    callId: `${step.id}#plan`,
    stepId: step.id,
    tool: step.tool,
    source,
    ...(step.scope && { delegation: nestedDelegation(step.scope) }),
    request,
    policyDecision,
  });
  const answers = await Promise.all(
    gates.map(async (gate) => {
      try {
        const answer = await gate.evaluate(input, signal);
        return answer.decision === 'continue' ? undefined : { decision: 'deny' as const, hook: gate.name, reason: answer.reason };
      } catch (cause) {
        return { decision: 'deny' as const, hook: gate.name, reason: `the gate failed: ${(cause as Error).message}` };
      }
    }),
  );
  return answers.find((answer) => answer !== undefined) ?? { decision: 'continue' };
}

/** The run's checks with the policy alone deciding: a plan asks nobody and writes nothing. */
function planChecks(opened: OpenedWorkflow): UpToDateChecks {
  return upToDateChecksOf(
    opened,
    false,
    () => {},
    async (_subject, request) => {
      const { decision } = opened.host.evaluatePolicy(request);
      if (decision === 'allow') return undefined;
      const needs = `${describeRequest(request)} needs ${grantingRule(request)}`;
      return new ToolError('policy_denied', decision === 'ask' ? `${needs} (asks for approval at run time)` : `${needs} (denied by the policy)`);
    },
  );
}

async function planUpToDate(step: CompiledStep, checks: UpToDateChecks, context: ExpressionContext, opened: OpenedWorkflow, signal: AbortSignal): Promise<PlannedStep['upToDate']> {
  if (step.sources === undefined) return undefined;
  if (step.argumentsReadSteps) return { verdict: 'unknown', reason: 'its arguments read earlier steps’ results, known only at run time' };
  const call = { id: `${step.id}#plan`, tool: step.tool, args: evaluateArguments(step, context, opened.host.tools.get(step.tool)), stepId: step.id };
  return plannedVerdict(await checks.check(step, call, signal));
}

/** A check's verdict as a plan shows it. */
function plannedVerdict(verdict: CheckVerdict): NonNullable<PlannedStep['upToDate']> {
  if (verdict.kind === 'refused') return { verdict: 'unknown', reason: verdict.error.message };
  return { verdict: verdict.kind === 'up_to_date' ? 'yes' : 'no', reason: verdict.reason, cacheKey: verdict.cacheKey };
}

/** The check a run makes of its whole task before any of its steps, as it would make it now. */
async function planTaskUpToDate(opened: OpenedWorkflow, checks: UpToDateChecks, signal: AbortSignal): Promise<WorkflowPlan['task']> {
  const { workflow } = opened;
  if (!workflow.check || workflow.steps.length === 0) return undefined;
  const name = workflow.task ?? '(default)';
  const subject = taskCheckSubject({ task: name, check: workflow.check, inputs: opened.inputs, members: workflow.steps, base: workflow.steps[0]!, stepId: name });
  return { name, upToDate: plannedVerdict(await checks.check(subject.step, subject.call, signal)) };
}

async function prepareForPlan(step: CompiledStep, opened: OpenedWorkflow, context: ExpressionContext, signal: AbortSignal, condition: boolean | undefined) {
  const root = opened.host.workspace.root;
  const declared = (fallback: Declaration): Declaration => (step.resources ? parseStepResources(step.resources, root) : fallback);
  const describe = (declaration: Declaration) =>
    declaration === 'exclusive'
      ? 'exclusive (runs alone)'
      : declaration.map((access) => `${access.mode} ${describeResourceKind(access.resource)} ${resourceName(access.resource, root)}`.trimEnd()).join(', ') || 'none';
  if (step.group?.kind === 'matrix' && step.group.later) {
    const note = `its matrix is an expression: ${deferredCells(step.group.later.step, context)}`;
    return { declaration: [] as Declaration, requests: [], report: { preparation: 'at_run_time' as const, note, resources: 'known at run time' } };
  }
  if (step.group) {
    const count = step.group.members.length;
    const members = step.group.kind === 'matrix' ? `${count} cell${count === 1 ? '' : 's'}` : `the ${count} step${count === 1 ? '' : 's'} of ${step.group.scope.task}`;
    const repeats = step.group.kind === 'uses' && step.group.repeats !== undefined ? step.group : undefined;
    const note =
      repeats === undefined
        ? `the combined status of ${members}; runs nothing itself`
        : `${repeats.scope.task} runs once in a run for the same inputs, as ${opened.workflow.steps[repeats.repeats!]!.id}: this takes its outcome`;
    return { declaration: [] as Declaration, requests: [], report: { preparation: 'group' as const, note, resources: 'none' } };
  }
  if (step.platformSkip !== undefined) {
    return { declaration: [] as Declaration, requests: [], report: { preparation: 'skipped' as const, note: `${step.platformSkip}: it would be skipped`, resources: 'none' } };
  }
  if (condition === false) {
    return {
      declaration: [] as Declaration,
      requests: [],
      report: { preparation: 'skipped' as const, note: 'its if: is false for these inputs: it would be skipped', resources: 'none' },
    };
  }
  const server = opened.servers.find((candidate) => step.tool.startsWith(`${candidate.declaration.name}.`));
  if (server && !opened.host.tools.get(step.tool)) {
    const declaration = declared('exclusive');
    const command = serverShown(server.declaration);
    return {
      declaration,
      requests: [],
      report: {
        preparation: 'at_run_time' as const,
        note: `a tool of the MCP server "${server.declaration.name}" (${command}); a plan starts no server, so its requests are known only in a run, after the server's start is authorized`,
        resources: step.resources ? describe(declaration) : 'known at run time (planned as exclusive)',
      },
    };
  }
  if (step.argumentsReadSteps) {
    const declaration = declared('exclusive');
    return {
      declaration,
      requests: [],
      report: {
        preparation: 'at_run_time' as const,
        note: 'arguments read earlier steps’ results; prepared when the step is ready',
        resources: step.resources ? describe(declaration) : 'known at run time (planned as exclusive)',
      },
    };
  }
  if (!opened.host.tools.get(step.tool)) {
    const declaration = declared('exclusive');
    const note = `tool ${step.tool} was not inspected: plan never runs workflow code (tool modules are not loaded, MCP servers not started); its requests are known when the step runs`;
    return {
      declaration,
      requests: [],
      report: { preparation: 'at_run_time' as const, note, resources: step.resources ? describe(declaration) : 'known at run time (planned as exclusive)' },
    };
  }
  const call = {
    id: `${step.id}#plan`,
    tool: step.tool,
    args: evaluateArguments(step, context, opened.host.tools.get(step.tool)),
    stepId: step.id,
    ...(step.writes && { writes: step.writes }),
  };
  const result = await opened.host.preview(call, signal);
  if (result instanceof ToolError) {
    const declaration = declared('exclusive');
    const later = (result.kind === 'not_found' || result.kind === 'path_refused') && step.index > 0;
    const report = later
      ? { preparation: 'at_run_time' as const, note: `${result.message}; an earlier step may create it, so it is prepared when the step is ready` }
      : { preparation: 'invalid' as const, note: result.message };
    const resources = step.resources ? describe(declaration) : 'known at run time (planned as exclusive)';
    return { declaration, requests: [], report: { ...report, resources } };
  }
  const declaration = declared(result.resources ?? 'exclusive');
  if (result.kind === 'exclusive') {
    const note = 'this tool cannot declare its requests in advance: it asks for what it needs while it runs';
    return { declaration, requests: [], report: { preparation: 'at_run_time' as const, note, resources: describe(declaration) } };
  }
  return {
    declaration,
    requests: [...result.requests],
    confinement: result.confinement,
    report: { preparation: 'prepared' as const, note: undefined, resources: describe(declaration) },
  };
}

/**
 * An earlier step that is not declared yet (it waits for its own dependencies) holds back every
 * later step; that wait is shown only when nothing held the step back after it, since a
 * conflict or barrier met later says more.
 */
function decisiveWaits(waits: readonly PlanWait[]): PlanWait[] {
  return waits.filter((wait, position) => wait.kind !== 'undeclared' || waits.slice(position + 1).every((later) => later.kind === 'dependency'));
}

function describeWait(wait: PlanWait, steps: readonly CompiledStep[], waiterIsExclusive: boolean): string {
  const id = steps[wait.index]?.id ?? String(wait.index);
  switch (wait.kind) {
    case 'dependency':
      return `${id} (dependency)`;
    case 'barrier':
      return waiterIsExclusive ? `${id} (this step runs alone: it starts after every earlier step)` : `${id} (exclusive step: a barrier in model order)`;
    case 'undeclared':
      return `${id} (an earlier step still waiting for its own dependencies; steps start in model order)`;
    case 'conflict':
      return `${id} (conflict on ${describeResourceKind(wait.resourceKind)})`;
  }
}

/** What a resource names, as a person finds it: a path relative to the workspace, a process id, a key. */
function resourceName(resource: Resource, root: string): string {
  switch (resource.kind) {
    case 'path':
    case 'tree': {
      const relative = path.relative(root, resource.path);
      const shown = relative === '' ? '.' : relative.startsWith('..') || path.isAbsolute(relative) ? resource.path : relative;
      return resource.kind === 'tree' ? `${shown}${shown.endsWith(path.sep) ? '' : path.sep}**` : shown;
    }
    case 'process':
      return resource.id;
    case 'key':
      return `${resource.owner}:${resource.key}`;
    case 'session':
      return '';
  }
}

/**
 * What a plan can say of a matrix known only at run time: its cells, when its expressions read
 * nothing a run computes (inputs, env, the run's context), else which steps they wait for.
 */
function deferredCells(step: CompiledStep, context: ExpressionContext): string {
  const matrix = step.dynamicMatrix!.matrix;
  const read = new Set<string>();
  walkTemplates(matrix, (text) => {
    for (const id of templateReferences(parseTemplate(text, { contexts: ['rho'] })).steps) read.add(id);
  });
  if (read.size > 0) return `its cells come later, once ${[...read].map((id) => `steps.${id}`).join(', ')} ${read.size === 1 ? 'is' : 'are'} known; each runs as a step of its own`;
  try {
    const cells = evaluatedMatrixCells(evaluateDeep(matrix, context));
    return `for these inputs its cells are ${cells.map((cell) => cellId(step.id, cell)).join(', ')}; each is planned when the run expands it`;
  } catch (error) {
    return `for these inputs it cannot be evaluated: ${(error as Error).message}`;
  }
}

/** How a plan names a server: its command, or for HTTP the URL's origin (no path or query values). */
function serverShown(declaration: McpServerDeclaration): string {
  if (!isHttpServer(declaration)) return [...declaration.command, ...(declaration.args ?? [])].join(' ');
  try {
    return new URL(declaration.url).origin;
  } catch {
    return 'an HTTP server';
  }
}
