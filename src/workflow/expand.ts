import { HostError } from '../host/errors.js';
import { cellId, cellSelected, type MatrixFilter } from './matrix.js';
import type { CompiledStep } from './model.js';

/**
 * Expands each matrix step of a compiled task into its cells, each an ordinary step with its
 * own id (`test (node=20)`), followed by the matrix step itself as a group that holds no call
 * and records the cells' combined status. Dependencies are renumbered: a cell waits for what
 * the matrix step waits for, and a step that refers to the matrix step waits for the group.
 * Only the cells `filter` keeps are compiled; a filter name no matrix has is a usage error.
 */
export function expandMatrices(steps: readonly CompiledStep[], filter: MatrixFilter): CompiledStep[] {
  const names = new Set(steps.flatMap((step) => (step.cells ?? []).flatMap((cell) => Object.keys(cell))));
  for (const name of Object.keys(filter)) {
    if (!names.has(name)) {
      const known = names.size > 0 ? `matrix names: ${[...names].join(', ')}` : 'this task has no matrix';
      throw new HostError('usage', `--matrix ${name}: no matrix step of this task has that name (${known})`);
    }
  }
  if (!steps.some((step) => step.cells)) return [...steps];
  const expanded: CompiledStep[] = [];
  /** Where each step of the task ended up: a matrix step is its group. */
  const placed = new Map<number, number>();
  for (const step of steps) {
    const dependencies = step.dependencies.map((index) => placed.get(index)!);
    const { cells, deferFailure, ...plain } = step;
    if (!cells) {
      expanded.push({ ...plain, index: expanded.length, dependencies });
      placed.set(step.index, expanded.length - 1);
      continue;
    }
    const members: number[] = [];
    for (const cell of cells.filter((candidate) => cellSelected(candidate, filter))) {
      const id = cellId(step.id, cell);
      const name = step.name === step.id ? id : cellId(step.name, cell);
      expanded.push({ ...plain, id, name, index: expanded.length, dependencies, matrix: cell, ...(deferFailure && { deferFailure }) });
      members.push(expanded.length - 1);
    }
    expanded.push({
      ...plain,
      index: expanded.length,
      dependencies: members,
      condition: undefined,
      conditionUsesStatus: false,
      withHasExpressions: false,
      argumentsReadSteps: false,
      with: {},
      async: false,
      retry: undefined,
      group: { kind: 'matrix', members },
    });
    placed.set(step.index, expanded.length - 1);
  }
  return expanded;
}
