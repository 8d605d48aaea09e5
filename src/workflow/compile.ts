import path from 'node:path';
import { describeIssues } from '../host/arguments.js';
import { HostError } from '../host/errors.js';
import type { ToolRegistry } from '../host/registry.js';
import { homePathProblem } from '../host/home-path.js';
import { writesPathProblem } from '../host/confinement/narrow.js';
import type { Tool } from '../host/tool.js';
import { parseRule } from '../host/rules.js';
import { envGrantProblem } from '../host/env-grants.js';
import { isCredentialName } from '../tools/process/environment.js';
import { parseDuration } from './duration.js';
import { ExpressionError, isLiteralTemplate, parseTemplate, templateReferences, walkTemplates, type ValuePath, type ParseOptions, type Template } from './expressions/index.js';
import type { CompiledStep, CompiledTask, CompiledWorkflow, TaskCheck, TaskReference, UsesCall } from './model.js';
import { isDynamicMatrix, matrixCells, type MatrixCell, type MatrixFile, type MatrixFilter, type MatrixSetting } from './matrix.js';
import { linkWorkflow, type CompiledFile } from './link.js';
import { callsAnotherFile, parseUsesTarget } from './uses.js';
import type { Problem } from './problems.js';
import type { RetryPolicy } from '../host/retry.js';
import { runContextKeys } from './run-context.js';
import {
  stepSchema,
  taskNamePattern,
  taskSchema,
  workflowSchema,
  type InputDeclaration,
  type RetrySetting,
  type StepDefaults,
  type StepFile,
  type TaskFile,
  type WorkflowFile,
} from './schema.js';
import { missingField } from './schema-keys.js';
import { reportSchemaIssues } from './problems-schema.js';
import { usesId, withDerivedIds, type CommandAt } from './short-steps.js';
import type { NodePath, WorkflowSource } from './source.js';
import { globProblem } from './up-to-date/file-set.js';
import { platformSkipReason, type PlatformName } from './platforms.js';
import { closestNames, closestToolNames, isPendingServerTool } from './suggest.js';
import { isPrivateTask, publicTaskNames, resolveTaskName } from './task-names.js';
import { codePositions } from './interpreter-code.js';
import { codeArguments, processNetworkReason, UntrustedValues } from './untrusted-values.js';

export interface CompileOptions {
  /**
   * Declared MCP servers whose tools are not listed yet (validation starts nothing): a step
   * naming `<server>.<tool>` of one of them is accepted here and checked once the server runs.
   */
  pendingServers?: readonly string[];
  /**
   * Tool modules were named but not imported (checking never runs workflow code): a step naming
   * a tool that is not registered may take it from one of them, so it is accepted here.
   */
  pendingModules?: boolean;
  /** Contexts beyond inputs, steps, env and secrets that expressions may read. */
  contexts?: readonly string[];
  /** The task to compile for a run; the default task (top-level `steps:`) when absent. Every task is validated. */
  task?: string;
  /** `--matrix NAME=VALUE`: the cells a run keeps. */
  matrixFilter?: MatrixFilter;
  /** The platform `platforms:` is decided for (this machine's by default). */
  platform?: NodeJS.Platform;
  /**
   * The other files `uses:` steps name, compiled (by absolute path); the loader reads them.
   * Without it, steps that use another file's task are not checked against it, and no task is
   * returned (a check of the file alone).
   */
  calledFiles?: ReadonlyMap<string, CompiledFile>;
  /**
   * Another file's task, compiled: the steps that use it read its outputs (a read of one it does
   * not declare is a warning) and what they carry (a task not known carries untrusted text).
   */
  calledTask?: (reference: TaskReference) => CalledTask | undefined;
  /**
   * Why what the run's processes print may be outside content (`processNetworkReason` of the
   * run's policy and flags): it is then untrusted in every file the run compiles. Without it, a
   * file's own policy decides.
   */
  processNetwork?: string;
  /**
   * The running user's home, against which `~` in the file's paths (rules, granted roots,
   * `writes:`) is checked: `null` when the user has none, so every `~` is a problem there;
   * absent when not known, so only the form (`~user` is refused) is checked.
   */
  homeDirectory?: string | null;
}

/** The home `~` is checked against: a stand-in when it is not known, since then only the form is checked. */
function homeForChecks(options: CompileOptions): string | undefined {
  return options.homeDirectory === undefined ? path.sep : (options.homeDirectory ?? undefined);
}

/**
 * Validates a parsed workflow and compiles it for the runner. Every problem is collected in one
 * pass, each located in the file. Every task is checked; the one asked for is returned, with
 * its `uses:` steps expanded.
 */
export function compileWorkflow(
  source: WorkflowSource,
  tools: ToolRegistry,
  options: CompileOptions = {},
): { workflow?: CompiledWorkflow; problems: Problem[]; warnings: Problem[] } {
  return assembleWorkflow(compileFile(source, tools, options), options);
}

/** The task asked for of a compiled file, linked with the files its `uses:` steps call and expanded. */
export function assembleWorkflow(
  compiled: ReturnType<typeof compileFile>,
  options: Pick<CompileOptions, 'task' | 'matrixFilter' | 'calledFiles'>,
): { workflow?: CompiledWorkflow; problems: Problem[]; warnings: Problem[] } {
  const { file, source } = compiled;
  if (!file) return { problems: compiled.problems, warnings: compiled.warnings };
  // The uses: steps that compiled are checked against their tasks even when others did not, so one pass reports both.
  const valid = compiled.problems.length === 0;
  // A task is asked for by its name or one of its aliases.
  const taskName = options.task === undefined ? undefined : resolveTaskName(file, options.task);
  if (valid && options.task !== undefined && taskName === undefined) throw unknownTaskError(source.file, file, options.task);
  const linked = linkWorkflow({ ...compiled, file }, options.calledFiles, { task: valid ? taskName : undefined, matrixFilter: options.matrixFilter ?? {}, expand: valid });
  if (!valid || linked.problems.length > 0 || !linked.steps) return { problems: uniqueProblems([...compiled.problems, ...linked.problems]), warnings: compiled.warnings };
  const task = compiled.tasks.get(taskName);
  const workflow: CompiledWorkflow = {
    source,
    file,
    task: taskName,
    matrixFilter: options.matrixFilter ?? {},
    inputs: task?.inputs ?? file.inputs ?? {},
    parameters: (taskName === undefined ? undefined : file.tasks?.[taskName]?.inputs) ?? {},
    ...(task?.check && { check: task.check }),
    outputs: task?.outputs ?? {},
    steps: linked.steps,
    calledRules: linked.calledRules,
    calledFiles: linked.calledFiles,
    // A file without the default task asked for has no steps, and so no matrix to expand.
    expandCells: linked.expandCells ?? (() => ({ steps: [], members: [] })),
  };
  return { workflow, problems: [], warnings: compiled.warnings };
}

/**
 * Validates one workflow file and compiles each of its tasks, unexpanded: what the run's file
 * and the files its `uses:` steps name are made of.
 */
export function compileFile(
  source: WorkflowSource,
  tools: ToolRegistry,
  options: CompileOptions = {},
): { file?: WorkflowFile; source: WorkflowSource; tasks: Map<string | undefined, CompiledTask>; problems: Problem[]; warnings: Problem[] } {
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const tasks = new Map<string | undefined, CompiledTask>();
  const report = (nodePath: NodePath, message: string, options: { key?: boolean; offset?: number } = {}) =>
    problems.push({ file: source.file, ...(options.offset === undefined ? source.position(nodePath, options) : source.positionInString(nodePath, options.offset)), message });

  const data = source.toData();
  const parsed = workflowSchema.safeParse(data);
  if (!parsed.success) {
    reportSchemaIssues(data, parsed.error.issues, report);
    const lenient = lenientWorkflow(data);
    if (lenient) {
      for (const task of tasksOf(lenient.file, data)) compileSteps(source, lenient.file, task, tools, options, problems, warnings, lenient.invalidSteps.get(task.path.join('.')));
    }
    return { source, tasks, problems, warnings };
  }
  const file = parsed.data;
  const home = homeForChecks(options);
  for (const list of ['allow', 'ask', 'deny'] as const) {
    file.policy?.[list]?.forEach((rule, index) => {
      try {
        parseRule(rule, home);
      } catch (error) {
        report(['policy', list, index], (error as Error).message);
      }
    });
  }
  file.policy?.env?.forEach((pattern, index) => {
    const problem = envGrantProblem(pattern);
    if (problem) report(['policy', 'env', index], problem);
  });
  file.policy?.granted_roots?.forEach((root, index) => {
    const problem = homePathProblem(root, home);
    if (problem) report(['policy', 'granted_roots', index], `granted root ${JSON.stringify(root)}: ${problem}`);
  });
  if (file.steps === undefined && file.tasks === undefined) report([], 'a workflow needs steps: (its default task) or tasks:');
  if (file.outputs !== undefined && file.steps === undefined)
    report(['outputs'], 'outputs: at the top belong to the default task (steps:), which this file does not have', { key: true });
  file.host_env?.forEach((name, index) => {
    if (isCredentialName(name)) report(['host_env', index], `${name} looks like a credential; pass it through secrets: so it is masked`);
    else if (file.env?.[name] !== undefined) report(['host_env', index], `${name} is also set under env:; keep one`);
  });
  const checkDefaults = (declared: Readonly<Record<string, InputDeclaration>> | undefined, at: NodePath) => {
    for (const [name, input] of Object.entries(declared ?? {})) {
      if (input.default !== undefined && Array.isArray(input.default) !== (input.type === 'array')) {
        report(
          [...at, name, 'default'],
          input.type === 'array' ? `input ${name} is an array: its default is a list` : `input ${name} is a ${input.type}: its default cannot be a list`,
        );
      }
    }
  };
  checkAliases(file, report);
  checkDefaultWrites(file, home, report);
  for (const [name, task] of Object.entries(file.tasks ?? {})) {
    for (const key of ['sources', 'generates'] as const) {
      task[key]?.forEach((glob, index) => {
        const problem = globProblem(glob);
        if (problem) report(['tasks', name, key, index], problem);
      });
    }
    if (task.generates !== undefined && task.sources === undefined)
      report(['tasks', name, 'generates'], 'generates: goes with sources: (what the task reads decides whether it is up to date)', { key: true });
  }
  checkDefaults(file.inputs, ['inputs']);
  for (const [name, task] of Object.entries(file.tasks ?? {})) checkDefaults(task.inputs, ['tasks', name, 'inputs']);
  const own = path.resolve(source.file);
  // A task's own outputs are known to the tasks of the file that use it, compiled after it.
  const compiled = new Map<string | undefined, CompiledTask>();
  const calledTask = (reference: TaskReference) => (reference.file === own ? compiled.get(reference.task) : options.calledTask?.(reference));
  const fileTasks = tasksOf(file, data);
  for (const task of calleesFirst(fileTasks)) {
    for (const name of Object.keys(task.ownInputs)) {
      if (file.inputs?.[name] !== undefined)
        report([...task.path.slice(0, -1), 'inputs', name], `input ${name} is declared by the file and by task ${task.name}; rename one`, { key: true });
    }
    const { steps, outputs, outputsUntrusted } = compileSteps(source, file, task, tools, { ...options, calledTask }, problems, warnings);
    compiled.set(task.name, {
      reference: { file: own, task: task.name },
      file: source.file,
      inputs: task.inputs,
      outputs,
      outputsUntrusted,
      once: task.once,
      ...(task.check && { check: task.check }),
      steps,
    });
  }
  // In file order, as problems about them are reported.
  for (const task of fileTasks) tasks.set(task.name, compiled.get(task.name)!);
  return { file, source, tasks, problems: uniqueProblems(problems), warnings };
}

/**
 * The tasks in an order where a task comes after the tasks of the same file it uses, so what
 * their outputs carry is known when it is compiled; tasks in a cycle (refused later) keep theirs.
 */
function calleesFirst(tasks: readonly TaskOf[]): TaskOf[] {
  const byName = new Map(tasks.map((task) => [task.name, task]));
  const ordered: TaskOf[] = [];
  const state = new Map<TaskOf, 'visiting' | 'done'>();
  const visit = (task: TaskOf) => {
    if (state.has(task)) return;
    state.set(task, 'visiting');
    for (const step of task.steps) {
      const callee = step.uses === undefined || callsAnotherFile(step.uses) ? undefined : byName.get(step.uses);
      if (callee) visit(callee);
    }
    state.set(task, 'done');
    ordered.push(task);
  };
  tasks.forEach(visit);
  return ordered;
}

/** A default that is wrong is reported once, not once for every step it reaches. */
function uniqueProblems(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.line}:${problem.col}:${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** One task of a file, with what its steps may refer to. The default task has no name. */
interface TaskOf {
  name: string | undefined;
  /** Where its steps are in the file. */
  path: NodePath;
  /** Its steps: a `uses:` step for each task it `needs:`, then its own. */
  steps: readonly StepFile[];
  /** Where each step is written: a need's entry under `needs:`, else the step in `path`. */
  stepAt: (index: number) => NodePath;
  /** How many of its steps are its `needs:`: every other step waits for them. */
  needCount: number;
  ownInputs: Readonly<Record<string, InputDeclaration>>;
  /** The file's inputs and the task's own: what `inputs.*` reads. */
  inputs: Readonly<Record<string, InputDeclaration>>;
  /** The file's defaults, with the task's own over them. */
  defaults: StepDefaults;
  /** Where each default comes from, to locate a bad one. */
  defaultsPath: (key: keyof StepDefaults) => NodePath;
  /** `sequential: true`: each step waits for the one before it, as if it named it in needs:. */
  sequential: boolean;
  /** `outputs:` as written, and where. */
  outputs: Readonly<Record<string, string>>;
  outputsPath: NodePath;
  /** `platforms:` of the task: where its steps run. */
  platforms: readonly PlatformName[] | undefined;
  /** `run: once` (the default): a second use with the same inputs does not run it again. */
  once: boolean;
  /** `sources:` and `generates:` of the task. */
  check: TaskCheck | undefined;
  /** `env:` of the task: extra environment of its process steps. */
  env: Readonly<Record<string, string>>;
  /** Where the task's `env:` is. */
  envPath: NodePath;
}

/** `data` is the file as written: a task written as a list has its steps where the task is. */
function tasksOf(file: WorkflowFile, data: unknown): TaskOf[] {
  const written = (data as { tasks?: unknown } | null)?.tasks;
  const isList = (name: string) => written !== null && typeof written === 'object' && Array.isArray((written as Record<string, unknown>)[name]);
  const tasks: TaskOf[] = [];
  const fileDefaults = file.defaults ?? {};
  if (file.steps) {
    const defaultsPath = (key: keyof StepDefaults) => ['defaults', key];
    tasks.push({
      name: undefined,
      path: ['steps'],
      steps: file.steps,
      stepAt: (index) => ['steps', index],
      needCount: 0,
      ownInputs: {},
      inputs: file.inputs ?? {},
      defaults: fileDefaults,
      defaultsPath,
      sequential: file.sequential ?? fileDefaults.sequential ?? false,
      outputs: file.outputs ?? {},
      outputsPath: ['outputs'],
      platforms: undefined,
      once: true,
      check: undefined,
      env: {},
      envPath: ['env'],
    });
  }
  for (const [name, task] of Object.entries(file.tasks ?? {})) {
    const ownInputs = task.inputs ?? {};
    // A task's writes: is its defaults' writes, written where the task's other keys are.
    const defaults = { ...fileDefaults, ...task.defaults, ...(task.writes !== undefined && { writes: task.writes }) };
    const defaultsPath = (key: keyof StepDefaults) =>
      key === 'writes' && task.writes !== undefined ? ['tasks', name, 'writes'] : task.defaults?.[key] !== undefined ? ['tasks', name, 'defaults', key] : ['defaults', key];
    const path = isList(name) ? ['tasks', name] : ['tasks', name, 'steps'];
    const needs = task.needs === undefined ? [] : typeof task.needs === 'string' ? [task.needs] : task.needs;
    const needAt = (index: number) => (typeof task.needs === 'string' ? ['tasks', name, 'needs'] : ['tasks', name, 'needs', index]);
    tasks.push({
      name,
      path,
      steps: withNeeds(needs, task.steps),
      stepAt: (index) => (index < needs.length ? needAt(index) : [...path, index - needs.length]),
      needCount: needs.length,
      ownInputs,
      inputs: { ...file.inputs, ...ownInputs },
      defaults,
      defaultsPath,
      sequential: task.sequential ?? defaults.sequential ?? false,
      outputs: task.outputs ?? {},
      outputsPath: ['tasks', name, 'outputs'],
      platforms: task.platforms,
      once: task.run !== 'always',
      check: task.sources === undefined ? undefined : { sources: task.sources, generates: task.generates ?? [] },
      // As the file's env: is, a number or a boolean is its text: a process's environment holds strings.
      env: Object.fromEntries(Object.entries(task.env ?? {}).map(([name, value]) => [name, String(value)])),
      envPath: ['tasks', name, 'env'],
    });
  }
  return tasks;
}

/** A task's steps after a `uses:` step for each task it needs, whose ids are the tasks' (a step's own id is never taken). */
function withNeeds(needs: readonly string[], steps: readonly StepFile[]): StepFile[] {
  if (needs.length === 0) return [...steps];
  type Unnamed = Omit<StepFile, 'id'> & { id?: string; derivedId?: string };
  const needSteps = needs.map((uses): Unnamed => {
    const derivedId = usesId(uses);
    return derivedId === undefined ? { uses } : { uses, derivedId };
  });
  return withDerivedIds<Unnamed>([...needSteps, ...steps]);
}

/** `rho run FILE NAME` with a name the file does not have: a usage error that lists what it has (private tasks left out). */
export function unknownTaskError(file: string, workflow: WorkflowFile, name: string): HostError {
  const names = publicTaskNames(workflow);
  const suggestions = closestNames(name, names);
  const hint = suggestions.length > 0 ? `; did you mean ${suggestions.map((task) => `"${task}"`).join(' or ')}?` : '';
  const listed = Object.entries(workflow.tasks ?? {})
    .filter(([task, declared]) => !isPrivateTask(task, declared))
    .map(([task]) => task);
  const known = listed.length > 0 ? ` (tasks: ${listed.join(', ')})` : workflow.tasks === undefined ? ' (it has no tasks:)' : '';
  return new HostError('usage', `${file} has no task "${name}"${hint}${known}`);
}

/** `writes:` that steps not saying inherit (the file's default, a task's, its defaults'): checked where written, whether or not a process step takes it. */
function checkDefaultWrites(file: WorkflowFile, home: string | undefined, report: (nodePath: NodePath, message: string) => void): void {
  const written: [NodePath, readonly string[] | undefined][] = [
    [['defaults', 'writes'], file.defaults?.writes],
    ...Object.entries(file.tasks ?? {}).flatMap(([name, task]): [NodePath, readonly string[] | undefined][] => [
      [['tasks', name, 'writes'], task.writes],
      [['tasks', name, 'defaults', 'writes'], task.defaults?.writes],
    ]),
  ];
  for (const [at, globs] of written) {
    globs?.forEach((glob, index) => {
      const problem = writesPathProblem(glob, home);
      if (problem) report([...at, index], problem);
    });
  }
}

/** Aliases are names of their own: one that is a task's name or another task's alias is refused. */
function checkAliases(file: WorkflowFile, report: (nodePath: NodePath, message: string) => void): void {
  const owner = new Map<string, string>();
  for (const [name, task] of Object.entries(file.tasks ?? {})) {
    task.aliases?.forEach((alias, index) => {
      const at = ['tasks', name, 'aliases', index];
      if (Object.hasOwn(file.tasks!, alias)) report(at, `alias ${alias} of task ${name} is the name of a task`);
      else if (owner.has(alias)) report(at, `alias ${alias} of task ${name} is already an alias of task ${owner.get(alias)}`);
      else owner.set(alias, name);
    });
  }
}

interface StepContext {
  source: WorkflowSource;
  file: WorkflowFile;
  task: TaskOf;
  tools: ToolRegistry;
  pendingServers: readonly string[];
  pendingModules: boolean;
  parseOptions: ParseOptions;
  problems: Problem[];
  /** What is allowed but almost certainly a mistake (a data field the tool never returns). */
  warnings: Problem[];
  indexById: Map<string, number>;
  untrusted: UntrustedValues;
  calledTask: CompileOptions['calledTask'];
  /** What `~` in a step's `writes:` is checked against (`homeForChecks`). */
  home: string | undefined;
  platform: NodeJS.Platform | undefined;
}

function compileSteps(
  source: WorkflowSource,
  file: WorkflowFile,
  task: TaskOf,
  tools: ToolRegistry,
  options: CompileOptions,
  problems: Problem[],
  warnings: Problem[],
  invalidSteps: ReadonlySet<number> = new Set(),
): { steps: CompiledStep[]; outputs: Record<string, Template>; outputsUntrusted: Record<string, string> } {
  const context: StepContext = {
    source,
    file,
    task,
    tools,
    pendingServers: options.pendingServers ?? [],
    pendingModules: options.pendingModules ?? false,
    // rho.* is the run's context, readable everywhere; matrix.* only in a matrix step.
    parseOptions: { contexts: [...(options.contexts ?? []), 'rho'] },
    problems,
    warnings,
    indexById: new Map(),
    // A task's own inputs may be marked untrusted as the file's are.
    untrusted: new UntrustedValues({ inputs: task.inputs, env: file.env }, options.processNetwork ?? processNetworkReason(file.policy), options.pendingServers),
    calledTask: options.calledTask,
    home: homeForChecks(options),
    platform: options.platform,
  };
  const compiled: CompiledStep[] = [];
  task.steps.forEach((step, index) => {
    if (invalidSteps.has(index)) {
      if (!context.indexById.has(step.id)) context.indexById.set(step.id, index);
      // Its other keys are wrong, but a tool it names can still be checked in the same pass.
      if (step.tool !== undefined && step.tool !== '' && !tools.get(step.tool)) checkUnknownTool(context, step.tool, index);
      return;
    }
    if (context.indexById.has(step.id)) {
      reportAt(context, [...task.stepAt(index), 'id'], `duplicate step id "${step.id}" (first used by step ${context.indexById.get(step.id)! + 1})`);
    }
    const result = compileStep(context, step, index);
    if (result) compiled.push(result);
    if (!context.indexById.has(step.id)) context.indexById.set(step.id, index);
  });
  const outputs = compileOutputs(context);
  const outputsUntrusted: Record<string, string> = {};
  for (const [name, template] of Object.entries(outputs)) {
    const why = context.untrusted.whyAny(template);
    if (why !== undefined) outputsUntrusted[name] = why;
  }
  return { steps: compiled, outputs, outputsUntrusted };
}

/** A task's `outputs:`: expressions over any of its steps and its inputs, evaluated once every step has finished. */
function compileOutputs(context: StepContext): Record<string, Template> {
  const outputs: Record<string, Template> = {};
  for (const [name, text] of Object.entries(context.task.outputs)) {
    const at = [...context.task.outputsPath, name];
    const template = parseOrReport(context, text, at);
    if (!template) continue;
    checkReferences(context, template, at, '', new Set(), undefined);
    outputs[name] = template;
  }
  return outputs;
}

/**
 * When the file as a whole fails the schema, the steps that pass it on their own are still
 * checked (tools, references, expressions), so one pass reports every problem. Steps that fail
 * keep their place and id so references to them are not reported twice. Invalid steps are
 * listed per task, keyed by the path of its steps.
 */
function lenientWorkflow(data: unknown): { file: WorkflowFile; invalidSteps: Map<string, Set<number>> } | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const raw = data as Record<string, unknown>;
  const invalidSteps = new Map<string, Set<number>>();
  const lenientSteps = (entries: unknown, path: string): StepFile[] | undefined => {
    if (!Array.isArray(entries)) return undefined;
    const invalid = new Set<number>();
    invalidSteps.set(path, invalid);
    return withDerivedIds(
      entries.map((entry, index) => {
        const checked = stepSchema.safeParse(entry);
        if (checked.success) return checked.data;
        invalid.add(index);
        const { id, tool } = (entry ?? {}) as { id?: unknown; tool?: unknown };
        return { id: typeof id === 'string' ? id : `#${index + 1}`, tool: typeof tool === 'string' && tool.length <= 200 ? tool : '' };
      }),
    );
  };
  const part = <K extends keyof WorkflowFile>(key: K): WorkflowFile[K] | undefined => {
    const checked = workflowSchema.shape[key].safeParse(raw[key]);
    return checked.success ? (checked.data as WorkflowFile[K]) : undefined;
  };
  // A name declared with a bad declaration is still declared: references to it are not reported too.
  const names = (key: 'inputs' | 'env') => {
    const declared = raw[key];
    if (declared === null || typeof declared !== 'object' || Array.isArray(declared)) return undefined;
    return Object.fromEntries(Object.keys(declared).map((name) => [name, {}]));
  };
  const tasks: Record<string, TaskFile> = {};
  if (raw.tasks !== null && typeof raw.tasks === 'object') {
    for (const [name, task] of Object.entries(raw.tasks as Record<string, unknown>)) {
      const steps = Array.isArray(task) ? lenientSteps(task, `tasks.${name}`) : lenientSteps((task as { steps?: unknown } | null)?.steps, `tasks.${name}.steps`);
      const inputs = taskSchema.shape.inputs.safeParse((task as { inputs?: unknown } | null)?.inputs);
      if (steps && taskNamePattern.test(name)) tasks[name] = { steps, ...(inputs.success && inputs.data && { inputs: inputs.data }) };
    }
  }
  const steps = lenientSteps(raw.steps, 'steps');
  const file = { version: 1, name: '', steps, tasks, inputs: names('inputs'), env: names('env'), env_file: part('env_file'), secrets: part('secrets') } as WorkflowFile;
  return { file, invalidSteps };
}

function reportAt(context: StepContext, nodePath: NodePath, message: string, offset?: number, list: Problem[] = context.problems): void {
  const position = offset === undefined ? context.source.position(nodePath) : context.source.positionInString(nodePath, offset);
  list.push({ file: context.source.file, ...position, message });
}

function compileStep(taskContext: StepContext, step: StepFile, index: number): CompiledStep | undefined {
  // A matrix step's expressions may read matrix.*.
  const context = step.matrix === undefined ? taskContext : { ...taskContext, parseOptions: { contexts: [...(taskContext.parseOptions.contexts ?? []), 'matrix'] } };
  // A short step's arguments are its command line (or its own env:, cwd:, ok_exit_codes:).
  const commandAt = step.commandAt;
  const at = (...rest: PropertyKey[]): NodePath =>
    commandAt !== undefined && rest[0] === 'with' ? [...context.task.stepAt(index), ...shortArgumentPath(commandAt, rest.slice(1))] : [...context.task.stepAt(index), ...rest];
  const before = context.problems.length;
  step.writes?.forEach((glob, position) => {
    const problem = writesPathProblem(glob, context.home);
    if (problem) reportAt(context, at('writes', position), problem);
  });
  const dependencies = new Set<number>(context.task.sequential && index > 0 ? [index - 1] : []);
  // A task's own steps start once the tasks it needs have finished.
  if (index >= context.task.needCount) for (let need = 0; need < context.task.needCount; need++) dependencies.add(need);
  const needs = step.needs === undefined ? [] : Array.isArray(step.needs) ? step.needs : [step.needs];
  needs.forEach((id, position) => {
    const target = resolveEarlierStep(context, id, step.id);
    if (typeof target === 'string') reportAt(context, Array.isArray(step.needs) ? at('needs', position) : at('needs'), target);
    else dependencies.add(target);
  });

  let cells: MatrixCell[] | undefined;
  const dynamicMatrix = step.matrix !== undefined && isDynamicMatrix(step.matrix) ? compileDynamicMatrix(taskContext, step.matrix, at('matrix'), step.id, dependencies) : undefined;
  if (step.matrix !== undefined && !dynamicMatrix) {
    try {
      cells = matrixCells(step.matrix as MatrixFile);
    } catch (error) {
      reportAt(context, at('matrix'), (error as Error).message);
    }
  }
  if (step.fail_fast !== undefined && step.matrix === undefined) reportAt(context, at('fail_fast'), 'fail_fast applies to a step with matrix:');
  const matrixNames = step.matrix === undefined ? undefined : dynamicMatrix ? dynamicMatrix.names : [...new Set((cells ?? []).flatMap((cell) => Object.keys(cell)))];
  // A matrix computed from untrusted values makes matrix.* untrusted in the step.
  const untrustedIn = (template: Template) =>
    context.untrusted.whyAny(template) ??
    (dynamicMatrix?.untrusted !== undefined && templateReferences(template).valueSources.some((source) => source.context === 'matrix')
      ? `matrix.* is computed from untrusted values (${dynamicMatrix.untrusted})`
      : undefined);
  const toolName = step.tool ?? '';
  if ((step.tool === undefined) === (step.uses === undefined)) {
    reportAt(context, at(), step.tool === undefined ? 'a step names tool: (a tool to call) or uses: (a task to run)' : 'a step names tool: or uses:, not both');
  }
  if (step.uses !== undefined) checkUsesStep(context, step, index);
  const tool = step.tool === undefined ? undefined : context.tools.get(step.tool);
  const defaults = context.task.defaults;
  const withValue = withTaskDefaults(step.with, context.task, tool);
  if (!tool && step.tool !== undefined) checkUnknownTool(context, step.tool, index);
  const stepEnv = (step.with?.env ?? {}) as Record<string, unknown>;
  // A task's env: value a step takes as it is: its problems are where the task writes it.
  const argumentPath = (valuePath: readonly PropertyKey[]): NodePath =>
    valuePath[0] === 'env' && valuePath.length > 1 && Object.hasOwn(context.task.env, valuePath[1]!) && !Object.hasOwn(stepEnv, valuePath[1]!)
      ? [...context.task.envPath, ...valuePath.slice(1)]
      : at('with', ...valuePath);

  let withHasExpressions = false;
  let argumentsReadSteps = false;
  let argumentsUntrusted: string | undefined;
  const withUntrusted: Record<string, string> = {};
  const argumentsUndecided = new Set<string>();
  const codeUndecided = new Set<string>();
  const code = codeOf(toolName, withValue);
  walkTemplates(withValue ?? {}, (text, valuePath) => {
    const where = argumentPath(valuePath);
    // A word of a command line is not where it starts in the file: its problems point at the line.
    const template = parseOrReport(context, text, where, commandAt === undefined ? 0 : false);
    if (template && !isLiteralTemplate(template)) {
      withHasExpressions = true;
      argumentsReadSteps ||= templateReferences(template).steps.size > 0;
      checkReferences(context, template, where, step.id, dependencies, matrixNames);
      const untrusted = untrustedIn(template);
      argumentsUntrusted ??= untrusted;
      if (untrusted !== undefined) withUntrusted[String(valuePath[0])] ??= untrusted;
      const role = code(valuePath);
      if (untrusted !== undefined && role !== undefined) reportAt(context, where, injectionMessage(toolName, valuePath.join('.'), untrusted, role || undefined));
      const undecided = context.untrusted.serversDeciding(template);
      for (const server of undecided) argumentsUndecided.add(server);
      if (role !== undefined) for (const server of undecided) codeUndecided.add(server);
    }
  });
  context.untrusted.addStep(step, tool, argumentsUntrusted, step.uses === undefined ? undefined : calledTaskOf(context, step.uses)?.outputsUntrusted, [...argumentsUndecided]);

  let condition: Template | boolean | undefined = typeof step.if === 'string' ? undefined : step.if;
  let conditionUsesStatus = false;
  if (typeof step.if === 'string') {
    const text = /\$\{\{/.test(step.if) ? step.if : `\${{ ${step.if} }}`;
    const template = parseOrReport(context, text, at('if'), text === step.if ? 0 : -4);
    if (template) {
      condition = template;
      conditionUsesStatus = templateReferences(template).statusFunctions;
      checkReferences(context, template, at('if'), step.id, dependencies, matrixNames);
    }
  }

  if (tool && withValue !== undefined && !withHasExpressions) {
    const checked = tool.schema.safeParse(withValue);
    if (!checked.success) reportAt(context, at('with'), `invalid arguments for ${tool.name}: ${describeIssues(checked.error.issues)}`);
  }
  if (step.async && tool && tool.mode !== 'async') {
    reportAt(context, at('async'), `tool ${tool.name} cannot run detached (it does not declare async mode)`);
  }
  for (const key of ['sources', 'generates'] as const) {
    step[key]?.forEach((glob, position) => {
      const problem = globProblem(glob);
      if (problem) reportAt(context, at(key, position), problem);
    });
  }
  let timeoutMs: number | undefined;
  const timeout = step.timeout ?? defaults.timeout;
  if (timeout !== undefined) {
    try {
      timeoutMs = parseDuration(timeout);
    } catch (error) {
      reportAt(context, step.timeout !== undefined ? at('timeout') : context.task.defaultsPath('timeout'), (error as Error).message);
    }
  }
  const retrySetting = step.retry ?? defaults.retry;
  let retry: RetryPolicy | undefined;
  if (retrySetting !== undefined) {
    try {
      retry = parseRetry(retrySetting);
    } catch (error) {
      reportAt(context, step.retry !== undefined ? at('retry') : context.task.defaultsPath('retry'), (error as Error).message);
    }
  }
  if (context.problems.length > before) return undefined;
  const platformSkip = platformSkipReason(context.task, step.platforms, context.platform);
  return {
    index,
    id: step.id,
    localId: step.id,
    name: step.name ?? step.id,
    tool: toolName,
    ...(step.uses !== undefined && { uses: usesCall(context, step, index, withUntrusted) }),
    line: context.source.position(at()).line,
    ...(toolName !== '' && !context.tools.get(toolName) && { toolAt: context.source.position([...context.task.stepAt(index), 'tool']) }),
    with: withValue ?? {},
    withHasExpressions,
    argumentsReadSteps,
    condition,
    conditionUsesStatus,
    dependencies: [...dependencies].sort((a, b) => a - b),
    async: step.async ?? false,
    continueOnError: step.continue_on_error ?? defaults.continue_on_error ?? false,
    timeoutMs,
    retry,
    ...(cells && { cells, deferFailure: step.fail_fast === false }),
    ...(dynamicMatrix && {
      dynamicMatrix: { matrix: step.matrix!, ...(dynamicMatrix.untrusted !== undefined && { untrusted: dynamicMatrix.untrusted }) },
      deferFailure: step.fail_fast === false,
    }),
    resources: step.resources && { shared: step.resources.shared ?? [], exclusive: step.resources.exclusive ?? [] },
    writes: step.writes ?? (tool && runsProcesses(tool) ? defaults.writes : undefined),
    ...(platformSkip !== undefined && { platformSkip }),
    sources: step.sources,
    generates: step.generates ?? [],
    ...(codeUndecided.size > 0 && { checkedWithServers: [...codeUndecided].sort() }),
  };
}

/**
 * Checks a matrix that is, or holds, expressions: they may read what the step may (earlier steps,
 * which it then waits for; not matrix.*). Returns its names when they are written out (else
 * matrix.* is not checked), and why its values may come from outside the workflow's author.
 */
function compileDynamicMatrix(
  context: StepContext,
  matrix: MatrixSetting,
  nodePath: NodePath,
  from: string,
  dependencies: Set<number>,
): { names: string[] | undefined; untrusted: string | undefined } {
  let untrusted: string | undefined;
  walkTemplates(matrix, (text, valuePath) => {
    const at = [...nodePath, ...valuePath];
    const template = parseOrReport(context, text, at);
    if (!template) return;
    checkReferences(context, template, at, from, dependencies, undefined);
    untrusted ??= context.untrusted.whyAny(template);
  });
  if (typeof matrix === 'string' || typeof matrix.include === 'string') return { names: undefined, untrusted };
  const names = [...Object.keys(matrix).filter((name) => name !== 'include' && name !== 'exclude'), ...(matrix.include ?? []).flatMap((entry) => Object.keys(entry))];
  return { names: [...new Set(names)], untrusted };
}

/** Where an argument of a short step is written: the command line for the program and its words, the step's own key otherwise. */
function shortArgumentPath(commandAt: CommandAt, argumentPath: readonly PropertyKey[]): PropertyKey[] {
  const [name] = argumentPath;
  return name === undefined || name === 'command' || name === 'args' || name === 'script' ? commandAt : [...argumentPath];
}

/** Keys that belong to a step calling a tool: on a `uses:` step they would silently do nothing. */
const toolOnlyKeys = ['async', 'timeout', 'retry', 'resources', 'writes', 'sources', 'generates'] as const;

function checkUsesStep(context: StepContext, step: StepFile, index: number): void {
  for (const key of toolOnlyKeys) {
    if (step[key] !== undefined) reportAt(context, [...context.task.stepAt(index), key], `${key}: does not apply to a uses: step; set it on the called task’s steps`, undefined);
  }
}

/** What the linker needs of a `uses:` step: its target and where its parts are. */
function usesCall(context: StepContext, step: StepFile, index: number, withUntrusted: Record<string, string>): UsesCall {
  const at = (rest: PropertyKey[], key = false) => ({ file: context.source.file, ...context.source.position([...context.task.stepAt(index), ...rest], { key }) });
  const withAt = Object.fromEntries(Object.keys(step.with ?? {}).map((key) => [key, at(['with', key], true)]));
  return { target: parseUsesTarget(step.uses!, context.source), text: step.uses!, at: at(['uses']), withAt, withUntrusted };
}

function parseRetry(setting: RetrySetting): RetryPolicy | undefined {
  const { attempts, delay, backoff } = typeof setting === 'number' ? { attempts: setting, delay: undefined, backoff: undefined } : setting;
  if (attempts < 2) return undefined;
  return { attempts, delayMs: delay === undefined ? 0 : parseDuration(delay), backoff: backoff ?? 1 };
}

/**
 * A step's `with:` with what its task and file give every step that does not say: the default
 * working directory, and the task's `env:` under the step's own, for every tool whose arguments
 * have them.
 */
function withTaskDefaults(raw: Record<string, unknown> | undefined, task: TaskOf, tool: Tool | undefined): Record<string, unknown> | undefined {
  if (!tool) return raw;
  let value = raw;
  if (task.defaults.cwd !== undefined && raw?.cwd === undefined && hasArgument(tool, 'cwd')) value = { ...value, cwd: task.defaults.cwd };
  if (Object.keys(task.env).length > 0 && hasArgument(tool, 'env')) value = { ...value, env: { ...task.env, ...(raw?.env as Record<string, unknown> | undefined) } };
  return value;
}

function runsProcesses(tool: Tool): boolean {
  return tool.classes.some((name) => name === 'process' || name === 'shell');
}

/** Whether a tool's arguments (a zod object) have a key: how a default reaches only the tools it fits. */
function hasArgument(tool: { schema: unknown }, key: string): boolean {
  const shape = (tool.schema as { shape?: unknown }).shape;
  return typeof shape === 'object' && shape !== null && key in shape;
}

function injectionMessage(tool: string, argument: string, why: string, role: string | undefined): string {
  const instead =
    tool === 'shell'
      ? 'pass it through env: instead (env: { VALUE: "${{ … }}" }) and write "$VALUE" in the script'
      : argument === 'command'
        ? 'pass it to the program through env: instead (env: { VALUE: "${{ … }}" }), or as one of args:'
        : 'pass it to the program through env: instead (env: { VALUE: "${{ … }}" }) and read it there, or after the code as the program\'s data';
  return `${tool} ${argument} would run text from outside the workflow (${why})${role === undefined ? '' : `: it is ${role}`}; ${instead}`;
}

/**
 * Which argument of a step is code, for the template-injection check: the tool's own code
 * argument (`shell`'s script, the command of `exec` and `process_start`: `''`, nothing more to
 * say), and the arguments an interpreter or a wrapper program reads as code (`codePositions`,
 * with why). A word of `args` that holds an expression is not known before the run.
 */
function codeOf(tool: string, withValue: Readonly<Record<string, unknown>> | undefined): (valuePath: ValuePath) => string | undefined {
  const own = codeArguments[tool];
  const runsProgram = tool === 'exec' || tool === 'process_start';
  const word = (value: unknown) => (typeof value === 'string' && !value.includes('${{') ? value : undefined);
  const command = word(withValue?.command);
  const args = withValue?.args;
  const positions = runsProgram && Array.isArray(args) ? codePositions(command, args.map(word)) : new Map<number, string>();
  // A whole argument list from an expression may put anything anywhere, for a program that reads code from its arguments.
  const wholeList = runsProgram && typeof args === 'string' ? codePositions(command, [undefined]).get(0) : undefined;
  return (valuePath) => {
    if (valuePath.length === 1 && valuePath[0] === own) return '';
    if (!runsProgram || valuePath[0] !== 'args') return undefined;
    return valuePath.length === 1 ? wholeList && `an argument list made by an expression, where ${wholeList}` : positions.get(Number(valuePath[1]));
  };
}

/** What a step reads of the task a `uses:` step names, when that task is compiled already. */
type CalledTask = Pick<CompiledTask, 'outputs' | 'outputsUntrusted'>;

function calledTaskOf(context: StepContext, uses: string): CalledTask | undefined {
  return context.calledTask?.(parseUsesTarget(uses, context.source));
}

/**
 * Warns about `steps.X.data.field` when X's tool declares its data and never returns that field,
 * or X runs a task that declares no such output (it would read as null).
 */
function checkDataFields(context: StepContext, template: Template, nodePath: NodePath): void {
  const paths = templateReferences(template).valueSources.filter((source) => source.context === 'steps' && source.keys[1]?.toLowerCase() === 'data' && source.keys.length > 2);
  for (const source of paths) {
    const stepId = source.keys[0]!.toLowerCase();
    const keys = source.keys.slice(2);
    const index = context.indexById.get(stepId);
    const uses = index === undefined ? undefined : context.task.steps[index]?.uses;
    const called = uses === undefined ? undefined : calledTaskOf(context, uses);
    if (uses !== undefined && called && !Object.keys(called.outputs).some((name) => name.toLowerCase() === keys[0]!.toLowerCase())) {
      const names = Object.keys(called.outputs);
      const suggestion = closestNames(keys[0]!, names)[0];
      const hint = suggestion ? `; did you mean "${suggestion}"?` : names.length > 0 ? ` (outputs: ${names.join(', ')})` : ' (it declares no outputs:)';
      reportAt(
        context,
        nodePath,
        `warning: steps.${stepId}.data.${keys.join('.')}: task ${uses} has no output "${keys[0]}", so this reads as null${hint}`,
        undefined,
        context.warnings,
      );
      continue;
    }
    const toolName = index === undefined ? undefined : context.task.steps[index]?.tool;
    const schema = toolName === undefined ? undefined : context.tools.get(toolName)?.data;
    if (!schema) continue;
    const missing = missingField(schema, keys);
    if (!missing) continue;
    const field = keys[missing.index]!;
    const where = missing.index === 0 ? 'its data' : `data.${keys.slice(0, missing.index).join('.')}`;
    const suggestion = closestNames(field, missing.known)[0];
    const hint = suggestion ? `; did you mean "${suggestion}"?` : missing.known.length > 0 ? ` (fields: ${missing.known.join(', ')})` : '';
    reportAt(
      context,
      nodePath,
      `warning: steps.${stepId}.data.${keys.join('.')}: ${toolName} has no field "${field}" in ${where}, so this reads as null${hint}`,
      undefined,
      context.warnings,
    );
  }
}

/** Reports a step's tool that is not registered (and not a pending server's), with what it may have meant. */
function checkUnknownTool(context: StepContext, name: string, index: number): void {
  if (isPendingServerTool(name, context.pendingServers) || (context.pendingModules && !name.includes('.'))) return;
  const suggestions = closestToolNames(name, context.tools.names(), context.pendingServers);
  const hint = suggestions.length > 0 ? `; did you mean ${suggestions.map((suggestion) => `"${suggestion}"`).join(' or ')}?` : '';
  reportAt(context, [...context.task.stepAt(index), 'tool'], `unknown tool "${name}"${hint}`);
}

/** `offsetShift` is where `text` starts in the value written (false: the text is not in it as it is). */
function parseOrReport(context: StepContext, text: string, nodePath: NodePath, offsetShift: number | false = 0): Template | undefined {
  try {
    return parseTemplate(text, context.parseOptions);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    reportAt(context, nodePath, `invalid expression: ${error.message}`, offsetShift === false ? undefined : Math.max(0, error.offset + offsetShift));
    return undefined;
  }
}

function resolveEarlierStep(context: StepContext, id: string, from: string): number | string {
  const index = context.indexById.get(id);
  if (index !== undefined) return index;
  if (id === from) return `step "${from}" cannot depend on itself`;
  const later = context.task.steps.some((step) => step.id === id);
  if (later) return `step "${id}" comes later; a step can only refer to earlier steps (this also rules out cycles)`;
  const suggestions = closestNames(id, [...context.indexById.keys()]);
  return `unknown step "${id}"${suggestions.length > 0 ? `; did you mean "${suggestions[0]}"?` : ''}`;
}

function checkReferences(context: StepContext, template: Template, nodePath: NodePath, from: string, dependencies: Set<number>, matrixNames: readonly string[] | undefined): void {
  const references = templateReferences(template);
  for (const id of references.steps) {
    const target = resolveEarlierStep(context, id, from);
    if (typeof target === 'string') reportAt(context, nodePath, target);
    else dependencies.add(target);
  }
  checkDataFields(context, template, nodePath);
  // Names are case-insensitive, as every property in an expression is.
  const folded = (names: readonly string[]) => new Set(names.map((name) => name.toLowerCase()));
  const declared = {
    inputs: folded(Object.keys(context.task.inputs)),
    secrets: folded(context.file.secrets ?? []),
    env: folded([...Object.keys(context.file.env ?? {}), ...(context.file.host_env ?? [])]),
  };
  // Names an env file holds are known only when the run reads it.
  const checked = context.file.env_file === undefined ? (['inputs', 'secrets', 'env'] as const) : (['inputs', 'secrets'] as const);
  for (const kind of checked) {
    for (const name of references[kind]) {
      if (!declared[kind].has(name.toLowerCase())) reportAt(context, nodePath, `${kind}.${name} is not declared under "${kind}:"`);
    }
  }
  // rho.* and matrix.* have fixed names: a misspelt one would read as null.
  for (const { context: root, keys } of references.valueSources) {
    const [name] = keys;
    if (name === undefined) continue;
    if (root === 'matrix' && matrixNames !== undefined && !matrixNames.includes(name)) {
      reportAt(context, nodePath, `matrix.${name} is not a name of this step's matrix (${matrixNames.join(', ')})`);
    }
    if (root === 'rho' && !(runContextKeys as readonly string[]).includes(name)) reportAt(context, nodePath, `rho.${name} does not exist; rho has ${runContextKeys.join(', ')}`);
  }
}
