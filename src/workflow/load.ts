import { HostError } from '../host/errors.js';
import type { ToolRegistry } from '../host/registry.js';
import { assembleWorkflow, compileFile } from './compile.js';
import { loadCalledFiles } from './called-files.js';
import { loadExtensions, type ModuleLoading, type WorkflowExtensions } from './extensions/load-extensions.js';
import { uninspectedNotes } from './extensions/uninspected.js';
import type { MatrixFilter } from './matrix.js';
import type { CompiledStep, CompiledTask, CompiledWorkflow } from './model.js';
import { InvalidWorkflowError, type Problem } from './problems.js';
import { deadFileRuleWarnings, widerFileRuleWarnings } from './rule-warnings.js';
import type { ParseCachePlace } from './parse-cache.js';
import { WorkflowSource } from './source.js';
import { processNetworkReason, type ProcessNetworkSettings } from './untrusted-values.js';
import type { WorkspaceChoice } from './workspace-root.js';

export interface CheckedWorkflowFile {
  workflow?: CompiledWorkflow;
  extensions?: WorkflowExtensions;
  problems: Problem[];
  /** What is allowed but almost certainly a mistake, located like problems. */
  warnings: Problem[];
  /** What could not be inspected without running workflow code (modules skipped, servers not started). */
  notes: Problem[];
}

/** Which task of a file to compile (the default task when absent), and which matrix cells. */
export interface TaskSelection {
  task?: string | undefined;
  matrixFilter?: MatrixFilter;
  /**
   * `--workspace` and where it is relative to (else the file's `workspace:`, else the file's
   * directory is the workspace): files `uses:` steps name must be inside it.
   */
  workspace?: WorkspaceChoice;
  /** The run's `--allow`, `--ask` and `--sandbox`: with the file's policy, they decide whether processes can reach the network. */
  policyFlags?: ProcessNetworkSettings;
  /** What `~` in the file's paths is checked against (`CompileOptions.homeDirectory`). */
  homeDirectory?: string | null;
  /** Where parses are kept between loads (the CLI's `workflowParseCache`); none: the file is parsed every time. */
  parseCache?: ParseCachePlace | undefined;
  /** Note the uninspected steps of every task of the file (a check of the whole file), not only the selected task's. */
  everyTask?: boolean;
}

/**
 * Reads, parses and validates one workflow file; every problem found is returned. With `import`,
 * the module tools it names are loaded first (into a registry of its own, from `baseTools`) so
 * validation knows them; with `skip` no module is imported and steps naming a tool that is not
 * registered are accepted and noted. Its MCP servers are never started here: steps naming their
 * tools are accepted, and noted. Every task is validated; the one selected is compiled.
 */
export async function checkWorkflowFile(file: string, baseTools: ToolRegistry, loading: ModuleLoading, selection: TaskSelection = {}): Promise<CheckedWorkflowFile> {
  const read = await WorkflowSource.read(file, selection.parseCache);
  if (!read.source) return { problems: read.problems, warnings: [], notes: [] };
  const extensions = await loadExtensions(read.source, baseTools, loading);
  const pendingServers = extensions.servers.map((server) => server.declaration.name);
  const pendingModules = extensions.uninspectedModules.length > 0;
  const policy = (read.source.toData() as { policy?: ProcessNetworkSettings } | null)?.policy;
  const processNetwork = processNetworkReason(selection.policyFlags, typeof policy === 'object' ? (policy ?? undefined) : undefined);
  const options = {
    pendingServers,
    pendingModules,
    ...(processNetwork !== undefined && { processNetwork }),
    ...(selection.homeDirectory !== undefined && { homeDirectory: selection.homeDirectory }),
  };
  const called = await loadCalledFiles(read.source, extensions.tools, options, selection.workspace ?? { cwd: process.cwd() });
  const root = compileFile(read.source, extensions.tools, { ...options, calledTask: called.calledTask });
  const compiled =
    called.problems.length > 0
      ? { problems: [...root.problems, ...called.problems], warnings: root.warnings, workflow: undefined }
      : assembleWorkflow(root, {
          calledFiles: called.files,
          ...(selection.task !== undefined && { task: selection.task }),
          ...(selection.matrixFilter !== undefined && { matrixFilter: selection.matrixFilter }),
        });
  // Without a module's tools, no rule can be called dead for naming none of them.
  if (compiled.workflow && !pendingModules) {
    const targets = { tools: extensions.tools.list(), pendingNamespaces: pendingServers };
    extensions.warnings.push(...deadFileRuleWarnings(read.source, compiled.workflow.file, targets));
  }
  if (compiled.workflow) extensions.warnings.push(...widerFileRuleWarnings(read.source, compiled.workflow.file));
  const notedSteps = compiled.workflow ? (selection.everyTask ? everyTaskSteps(root.tasks, compiled.workflow.steps) : compiled.workflow.steps) : [];
  const notes = uninspectedNotes(read.source, extensions.uninspectedModules, extensions.servers, notedSteps, extensions.tools);
  const problems = [...read.problems, ...extensions.problems, ...compiled.problems];
  // In file order, as a reader goes through them (sort is stable: one place keeps its order); the run's file first.
  const inOrder = (a: Problem, b: Problem) => Number(a.file !== file) - Number(b.file !== file) || a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col;
  problems.sort(inOrder);
  const warnings = [...extensions.warnings, ...compiled.warnings, ...called.warnings].sort(inOrder);
  // Kept with every position this check asked, so that the next load of the same text asks yaml for none.
  if (read.problems.length === 0) read.source.keep();
  return { ...compiled, extensions, problems, warnings, notes };
}

/**
 * Each task's own steps (a named task's named by it), and the steps of other files the selected
 * task runs: every step of the file once, a matrix step before its cells.
 */
function everyTaskSteps(tasks: ReadonlyMap<string | undefined, CompiledTask>, selected: readonly CompiledStep[]): (CompiledStep & { task?: string })[] {
  const own = [...tasks].flatMap(([task, compiled]) => compiled.steps.map((step) => (task === undefined ? step : { ...step, task })));
  return [...own, ...selected.filter((step) => step.file !== undefined)];
}

/**
 * As checkWorkflowFile for the task to run, but throws InvalidWorkflowError (with any warnings)
 * when anything is wrong, and a usage error when the task does not exist or the file has no
 * default task.
 */
export async function loadWorkflowFile(
  file: string,
  baseTools: ToolRegistry,
  loading: ModuleLoading,
  selection: TaskSelection = {},
): Promise<{ workflow: CompiledWorkflow; extensions: WorkflowExtensions; warnings: Problem[]; notes: Problem[] }> {
  const { workflow, extensions, problems, warnings, notes } = await checkWorkflowFile(file, baseTools, loading, selection);
  if (!workflow || !extensions || problems.length > 0) throw new InvalidWorkflowError([...problems, ...warnings]);
  if (workflow.steps.length === 0) {
    const names = Object.keys(workflow.file.tasks ?? {});
    throw new HostError('usage', `${file} has no default steps; name a task: rho run ${file} TASK (tasks: ${names.join(', ')})`);
  }
  return { workflow, extensions, warnings, notes };
}
