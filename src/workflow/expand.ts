import { HostError, ToolError } from '../host/errors.js';
import { checkCallInputs } from './call-inputs.js';
import { evaluateDeep, parseTemplate, templateReferences, walkTemplates } from './expressions/index.js';
import { canonicalJson } from './up-to-date/fingerprint.js';
import { taskKey } from './uses.js';
import { cellId, cellSelected, type MatrixCell, type MatrixFilter } from './matrix.js';
import type { CompiledStep, CompiledTask, ExpansionScope, NestedScope, TaskReference } from './model.js';

/** Most steps one run may expand into: a task used many times over can multiply fast. */
export const maxExpandedSteps = 100_000;

export interface ExpandOptions {
  /** `--matrix NAME=VALUE`: the cells kept. */
  filter: MatrixFilter;
  /** The task a `uses:` step runs; validation has made sure it exists and no task uses itself. */
  resolve(reference: TaskReference): CompiledTask;
  /** How the nested group of a task is named to hooks and plans. */
  label(task: CompiledTask): string;
  /** The run's own file: steps of other files say which file they are in. */
  runFile: string;
}

type Within = ExpansionScope;

/** Expands the cells of a matrix known only as its step is ready (`later` of its group), numbering them from `firstIndex`. */
export type CellExpander = (group: CompiledStep, cells: readonly MatrixCell[], firstIndex: number) => { steps: CompiledStep[]; members: number[] };

/**
 * Expands a compiled task into the steps a run schedules. A matrix step becomes its cells, each
 * an ordinary step with its own id (`test (node=20)`), followed by the matrix step itself as a
 * group that holds no call and records the cells' combined status. A `uses:` step (or a cell of
 * one) becomes the called task's steps, expanded the same way with path ids (`release/build`,
 * `test (node=20)/unit`), followed by a group that records their combined status. Dependencies
 * are renumbered: a member waits for what its group's step waits for, and a step that refers to
 * a matrix or `uses:` step waits for its group. Only the cells `filter` keeps are expanded; a
 * filter name no matrix has is a usage error.
 */
export function expandTask(task: CompiledTask, options: ExpandOptions): { steps: CompiledStep[]; files: Set<string>; expandCells: CellExpander } {
  const expansion = new Expansion(options);
  expansion.task(task, { prefix: '', scope: undefined, dependencies: [], continueOnError: false, deferFailure: false, failureScope: undefined, file: undefined });
  const expandCells: CellExpander = (group, cells, firstIndex) => new Expansion(options, firstIndex).deferredCells(group, cells);
  // A matrix known only at run time may have any name, and select cells the filter keeps.
  if (expansion.deferredMatrices) return { steps: expansion.steps, files: expansion.files, expandCells };
  for (const name of Object.keys(options.filter)) {
    if (!expansion.matrixNames.has(name)) {
      const known = expansion.matrixNames.size > 0 ? `matrix names: ${[...expansion.matrixNames].join(', ')}` : 'this task has no matrix';
      throw new HostError('usage', `--matrix ${name}: no matrix step of this task has that name (${known})`);
    }
  }
  if (Object.keys(options.filter).length > 0 && expansion.filteredCells.length > 0 && expansion.selectedCells === 0) throw noCellSelected(options.filter, expansion.filteredCells);
  return { steps: expansion.steps, files: expansion.files, expandCells };
}

/** Most cells a usage error lists. */
const listedCells = 20;

/**
 * `--matrix` values that select no cell of any matrix they apply to: a usage error, so a CI
 * job whose values are spelt differently (`20` against `20.x`) fails instead of running nothing.
 */
export function noCellSelected(filter: MatrixFilter, cells: readonly string[]): HostError {
  const given = Object.entries(filter)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  const shown = cells.slice(0, listedCells).join(', ');
  const more = cells.length > listedCells ? `, and ${cells.length - listedCells} more` : '';
  return new HostError('usage', `--matrix ${given} matches no cell; the cells are: ${shown}${more} (rho matrix FILE TASK prints them)`);
}

class Expansion {
  readonly steps: CompiledStep[] = [];
  readonly matrixNames = new Set<string>();
  /** The cells of the matrices the filter applies to (those that have one of its names), and how many it kept. */
  readonly filteredCells: string[] = [];
  selectedCells = 0;
  /** The other files whose tasks were expanded. */
  readonly files = new Set<string>();
  /** The groups that run a task once in the run, by the task and its inputs (`run: once`). */
  readonly #ran = new Map<string, number>();
  /** Whether a matrix of the task is known only at run time. */
  deferredMatrices = false;

  /** `firstIndex`: the index of the first step placed (cells expanded at run time follow the run's steps). */
  constructor(
    private readonly options: ExpandOptions,
    private readonly firstIndex = 0,
  ) {}

  /** The cells of a matrix group whose matrix became known, placed as its cells would have been. */
  deferredCells(group: CompiledStep, cells: readonly MatrixCell[]): { steps: CompiledStep[]; members: number[] } {
    const later = group.group?.kind === 'matrix' ? group.group.later : undefined;
    if (!later) throw new ToolError('internal', `step ${group.id} has no matrix to expand`);
    const members = this.cells(later.step, cells, group.dependencies, later.within);
    return { steps: this.steps, members };
  }

  /** Places a task's steps; returns where each of them ended up (a matrix or `uses:` step is its group). */
  task(task: CompiledTask, within: Within): number[] {
    const placed = new Map<number, number>();
    for (const step of task.steps) {
      const dependencies = [...new Set([...within.dependencies, ...step.dependencies.map((index) => placed.get(index)!)])].sort((a, b) => a - b);
      const at = step.cells
        ? this.matrix(step, dependencies, within)
        : step.dynamicMatrix
          ? this.deferredMatrix(step, dependencies, within)
          : this.instance(step, dependencies, within);
      placed.set(step.index, at);
    }
    return [...placed.values()];
  }

  private matrix(step: CompiledStep, dependencies: readonly number[], within: Within): number {
    const { cells = [], uses: _uses, ...plain } = step;
    for (const name of cells.flatMap((cell) => Object.keys(cell))) this.matrixNames.add(name);
    const selected = cells.filter((cell) => cellSelected(cell, this.options.filter));
    if (cells.some((cell) => Object.keys(this.options.filter).some((name) => name in cell))) {
      this.filteredCells.push(...cells.map((cell) => `${within.prefix}${cellId(step.id, cell)}`));
      this.selectedCells += selected.length;
    }
    const members = this.cells(step, selected, dependencies, within);
    return this.push({ ...this.groupStep(plain, within), dependencies: members, group: { kind: 'matrix', members } });
  }

  /** A matrix whose cells are known when its step is ready: a group with no members yet, which the runner expands. */
  private deferredMatrix(step: CompiledStep, dependencies: readonly number[], within: Within): number {
    this.deferredMatrices = true;
    const { uses: _uses, dynamicMatrix: _matrix, ...plain } = step;
    return this.push({ ...this.groupStep(plain, within), dependencies, group: { kind: 'matrix', members: [], later: { step, within } } });
  }

  /** The cells of a matrix step, each an instance of it reading its own `matrix.*`. */
  private cells(step: CompiledStep, cells: readonly MatrixCell[], dependencies: readonly number[], within: Within): number[] {
    const { deferFailure } = step;
    return cells.map((cell) => {
      const id = cellId(step.id, cell);
      const name = step.name === step.id ? id : cellId(step.name, cell);
      return this.instance({ ...step, cells: undefined, dynamicMatrix: undefined, id, localId: id, name, matrix: cell, deferFailure: deferFailure ?? false }, dependencies, within);
    });
  }

  /** A matrix step as the group of its cells: no call, condition or arguments of its own. */
  private groupStep(step: Omit<CompiledStep, 'cells' | 'uses'>, within: Within): CompiledStep {
    const { deferFailure: _deferFailure, ...plain } = step;
    return {
      ...this.placed(plain, within),
      condition: undefined,
      conditionUsesStatus: false,
      withHasExpressions: false,
      argumentsReadSteps: false,
      with: {},
      async: false,
      retry: undefined,
    };
  }

  /** Places one step, or one cell: a `uses:` one as the called task's steps and its group. */
  private instance(step: CompiledStep, dependencies: readonly number[], within: Within): number {
    const { cells: _cells, uses, ...plain } = step;
    const placed = { ...this.placed(plain, within), dependencies };
    if (!uses) return this.push(placed);
    const called = this.options.resolve(uses.target);
    if (called.reference.file !== this.options.runFile) this.files.add(called.reference.file);
    const scope: NestedScope = { id: placed.id, task: this.options.label(called) };
    const once = onceKey(called, placed, within.failureScope);
    const earlier = once === undefined ? undefined : this.#ran.get(once);
    if (earlier !== undefined) {
      // The same task with the same inputs ran earlier in this run: this use waits for it and takes its outcome.
      const group = { kind: 'uses' as const, members: [], scope, inputs: called.inputs, outputs: called.outputs, repeats: earlier };
      return this.push({ ...placed, dependencies: [...new Set([...dependencies, earlier])].sort((a, b) => a - b), async: false, retry: undefined, group });
    }
    const members = this.task(called, {
      prefix: `${placed.id}/`,
      scope,
      dependencies,
      continueOnError: placed.continueOnError,
      deferFailure: placed.deferFailure ?? false,
      failureScope: placed.conditionUsesStatus ? scope.id : within.failureScope,
      file: called.reference.file === this.options.runFile ? undefined : called.file,
    });
    const group = { kind: 'uses' as const, members, scope, inputs: called.inputs, outputs: called.outputs, ...(called.check && { check: called.check }) };
    const index = this.push({ ...placed, dependencies: members, async: false, retry: undefined, group });
    if (once !== undefined) this.#ran.set(once, index);
    return index;
  }

  /** A step with its path id and what the group it is in passes down. */
  private placed(step: Omit<CompiledStep, 'cells' | 'uses'>, within: Within): CompiledStep {
    const { deferFailure, ...rest } = step;
    return {
      ...rest,
      index: this.steps.length,
      id: `${within.prefix}${step.id}`,
      localId: step.localId,
      name: `${within.prefix}${step.name}`,
      continueOnError: step.continueOnError || within.continueOnError,
      ...((deferFailure || within.deferFailure) && { deferFailure: true }),
      ...(within.scope && { scope: within.scope }),
      ...(within.failureScope !== undefined && { failureScope: within.failureScope }),
      ...(within.file !== undefined && { file: within.file }),
    };
  }

  private push(step: CompiledStep): number {
    if (this.firstIndex + this.steps.length >= maxExpandedSteps) throw new ExpansionTooLarge();
    const index = this.firstIndex + this.steps.length;
    this.steps.push({ ...step, index });
    return index;
  }
}

/**
 * What makes two uses of a task the same run of it: the task and its inputs (defaults applied),
 * when they are known before the run — `with:` values written out, or read from the matrix
 * cell. A use with an `if:`, of a task with `run: always`, or whose inputs are known only as it
 * runs has none: it runs each time.
 */
function onceKey(called: CompiledTask, step: CompiledStep, failureScope: string | undefined): string | undefined {
  if (!called.once || step.condition !== undefined) return undefined;
  const values = knownValues(step.with, step.matrix);
  if (values === undefined) return undefined;
  const { inputs, problems } = checkCallInputs(values, called.inputs, '');
  if (problems.length > 0) return undefined;
  return canonicalJson([taskKey(called.reference), failureScope ?? null, inputs]);
}

/** `with:` as the run will see it, when nothing in it reads more than the matrix cell. */
function knownValues(values: Readonly<Record<string, unknown>>, cell: MatrixCell | undefined): Record<string, unknown> | undefined {
  let known = true;
  walkTemplates(values, (text) => {
    if (!known || !text.includes('${{')) return;
    const reads = templateReferences(parseTemplate(text, { contexts: ['matrix', 'rho'] }));
    known = !reads.statusFunctions && [...reads.contexts].every((name) => name === 'matrix' && cell !== undefined);
  });
  if (!known) return undefined;
  const context = { inputs: {}, steps: {}, env: {}, secrets: {}, extra: { matrix: cell ?? {} }, run: { failed: false, cancelled: false } };
  return evaluateDeep(values, context) as Record<string, unknown>;
}

/** The task expands into more than `maxExpandedSteps` steps. */
export class ExpansionTooLarge extends HostError {
  constructor() {
    super('invalid_workflow', `it expands into more than ${maxExpandedSteps} steps (its uses: and matrix: multiply); split the work into separate runs`);
  }
}
