import path from 'node:path';
import { checkCallInputs, notYetKnown } from './call-inputs.js';
import { expandTask, ExpansionTooLarge, type CellExpander } from './expand.js';
import type { MatrixFilter } from './matrix.js';
import type { CalledRules, CompiledStep, CompiledTask, SourcePosition, TaskReference, UsesCall } from './model.js';
import type { Problem } from './problems.js';
import type { WorkflowFile } from './schema.js';
import type { WorkflowSource } from './source.js';
import { closestNames } from './suggest.js';
import { aliasTarget } from './task-names.js';
import { taskKey, taskLabel } from './uses.js';

/** One workflow file, validated, each of its tasks compiled and not yet expanded. */
export interface CompiledFile {
  file: WorkflowFile;
  source: WorkflowSource;
  tasks: ReadonlyMap<string | undefined, CompiledTask>;
}

/**
 * Checks every `uses:` step of the run's file and of the files it calls against the task it
 * names (that it exists, its inputs, no task using itself), then expands the selected task.
 * Without `called`, steps naming another file's task are left unchecked and nothing is expanded;
 * without `expand` (the file has other problems), only the checks are made.
 */
export function linkWorkflow(
  root: CompiledFile,
  called: ReadonlyMap<string, CompiledFile> | undefined,
  selection: { task: string | undefined; matrixFilter: MatrixFilter; expand: boolean },
): { steps?: CompiledStep[]; expandCells?: CellExpander; problems: Problem[]; calledRules: CalledRules; calledFiles: string[] } {
  const runFile = path.resolve(root.source.file);
  const fileOf = (reference: TaskReference) => (reference.file === runFile ? root : called?.get(reference.file));
  const resolve = (reference: TaskReference) => fileOf(reference)?.tasks.get(reference.task);
  const label = (task: CompiledTask) => taskLabel(task.reference, task.file, runFile);
  const problems: Problem[] = [];
  const files = [root, ...(called?.values() ?? [])];
  for (const file of files) {
    for (const task of file.tasks.values()) {
      for (const step of task.steps) {
        if (!step.uses) continue;
        const target = fileOf(step.uses.target);
        // A file that could not be read or compiled was reported by the loader.
        if (!target) continue;
        const callee = target.tasks.get(step.uses.target.task);
        if (!callee) problems.push(at(step.uses.at, missingTaskMessage(step.uses, target)));
        else problems.push(...callProblems(step, step.uses, callee, label(callee)));
      }
    }
  }
  problems.push(...cycleProblems(files, resolve, label));
  const calledRules = { ask: [] as string[], deny: [] as string[] };
  if (!selection.expand || problems.length > 0 || (called === undefined && files.some(callsOtherFile(runFile)))) return { problems, calledRules, calledFiles: [] };
  const selected = root.tasks.get(selection.task);
  if (!selected) return { steps: [], problems, calledRules, calledFiles: [] };
  try {
    const { steps, files: reached, expandCells } = expandTask(selected, { filter: selection.matrixFilter, resolve: (reference) => resolve(reference)!, label, runFile });
    for (const file of reached) {
      const policy = called?.get(file)?.file.policy;
      calledRules.ask.push(...(policy?.ask ?? []));
      calledRules.deny.push(...(policy?.deny ?? []));
    }
    return { steps, expandCells, problems, calledRules, calledFiles: [...reached] };
  } catch (error) {
    if (!(error instanceof ExpansionTooLarge)) throw error;
    const where = selection.task === undefined ? ['steps'] : ['tasks', selection.task];
    return {
      problems: [{ file: root.source.file, ...root.source.position(where, { key: true }), message: `task ${label(selected)}: ${error.message}` }],
      calledRules,
      calledFiles: [],
    };
  }
}

function callsOtherFile(runFile: string) {
  return (file: CompiledFile) => [...file.tasks.values()].some((task) => task.steps.some((step) => step.uses !== undefined && step.uses.target.file !== runFile));
}

function at(position: SourcePosition, message: string): Problem {
  return { ...position, message };
}

function missingTaskMessage(uses: UsesCall, target: CompiledFile): string {
  const names = Object.keys(target.file.tasks ?? {});
  const where = uses.at.file === target.source.file ? 'this file' : target.source.file;
  if (uses.target.task === undefined)
    return `uses: ${uses.text}: ${where} has no default task (steps:); name one of its tasks with #TASK${names.length > 0 ? ` (tasks: ${names.join(', ')})` : ''}`;
  const alias = aliasTarget(target.file, uses.target.task);
  if (alias !== undefined) return `uses: ${uses.text}: ${uses.target.task} is an alias of task ${alias}; uses: names the task itself`;
  const suggestion = closestNames(uses.target.task, names)[0];
  const hint = suggestion ? `; did you mean "${suggestion}"?` : names.length > 0 ? ` (tasks: ${names.join(', ')})` : ' (it has no tasks:)';
  return `uses: ${uses.text}: ${where} has no task "${uses.target.task}"${hint}`;
}

/** The `with:` of a `uses:` step against the called task's inputs: what is known before the run. */
function callProblems(step: CompiledStep, uses: UsesCall, callee: CompiledTask, label: string): Problem[] {
  const values = Object.fromEntries(Object.entries(step.with).map(([key, value]) => [key, JSON.stringify(value).includes('${{') ? notYetKnown : value]));
  const checked = checkCallInputs(values, callee.inputs, label);
  const problems = checked.problems.map((problem) => at(problem.key === undefined ? uses.at : (uses.withAt[problem.key] ?? uses.at), problem.message));
  for (const [key, why] of Object.entries(uses.withUntrusted)) {
    const declaration = callee.inputs[key];
    if (declaration && !declaration.untrusted) {
      problems.push(
        at(
          uses.withAt[key] ?? uses.at,
          `input ${key} of task ${label} receives text from outside the workflow (${why}); declare it untrusted: true in the called task, so its steps cannot run it as code`,
        ),
      );
    }
  }
  return problems;
}

/** Every task that, directly or through others, uses itself: refused, with the cycle spelled out, at the step that closes it. */
function cycleProblems(files: readonly CompiledFile[], resolve: (reference: TaskReference) => CompiledTask | undefined, label: (task: CompiledTask) => string): Problem[] {
  const problems: Problem[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const reported = new Set<string>();
  const path: CompiledTask[] = [];
  const visit = (task: CompiledTask) => {
    const key = taskKey(task.reference);
    state.set(key, 'visiting');
    path.push(task);
    for (const step of task.steps) {
      const callee = step.uses && resolve(step.uses.target);
      if (!callee) continue;
      const calleeKey = taskKey(callee.reference);
      const seen = state.get(calleeKey);
      if (seen === 'visiting') {
        const cycle = path.slice(path.findIndex((entry) => taskKey(entry.reference) === calleeKey));
        const id = cycle
          .map((entry) => taskKey(entry.reference))
          .sort()
          .join('|');
        if (!reported.has(id)) {
          reported.add(id);
          const names = [...cycle, callee].map(label).join(' → ');
          problems.push(at(step.uses!.at, `task ${label(callee)} uses itself: ${names}; a task cannot run inside itself`));
        }
      } else if (seen === undefined) {
        visit(callee);
      }
    }
    path.pop();
    state.set(key, 'done');
  };
  for (const file of files) for (const task of file.tasks.values()) if (!state.has(taskKey(task.reference))) visit(task);
  return problems;
}
