import { HostError } from '../host/errors.js';
import type { MatrixCell } from './matrix.js';
import type { CompiledStep, CompiledWorkflow } from './model.js';

/**
 * The cells of one matrix step in the shape GitHub Actions' `strategy.matrix` takes through
 * `fromJSON`: `{"include": [{...}, ...]}`, so a CI job can fan out one machine per cell and
 * each runs `rho run FILE TASK --matrix NAME=VALUE`. `stepId` picks the step when the task
 * has more than one matrix step.
 */
export function matrixForCi(workflow: CompiledWorkflow, stepId: string | undefined): { include: MatrixCell[] } {
  return { include: cellsOf(workflow, chosenMatrix(workflow, stepId)) };
}

/**
 * Every `NAME=VALUE` that `--matrix` accepts for a task, once each, in the order of the cells:
 * those of one matrix step with `stepId`, else of all of them (what shell completion offers).
 */
export function matrixPairs(workflow: CompiledWorkflow, stepId: string | undefined): string[] {
  const groups = stepId === undefined ? matrixSteps(workflow) : [chosenMatrix(workflow, stepId)];
  const cells = groups.flatMap((group) => cellsOf(workflow, group));
  return [...new Set(cells.flatMap((cell) => Object.entries(cell).map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)))];
}

function matrixSteps(workflow: CompiledWorkflow): CompiledStep[] {
  return workflow.steps.filter((step) => step.group?.kind === 'matrix');
}

function cellsOf(workflow: CompiledWorkflow, group: CompiledStep): MatrixCell[] {
  return group.group!.members.map((index) => workflow.steps[index]!.matrix!);
}

function chosenMatrix(workflow: CompiledWorkflow, stepId: string | undefined): CompiledStep {
  const groups = matrixSteps(workflow);
  const task = workflow.task === undefined ? 'the default task' : `task ${workflow.task}`;
  if (groups.length === 0) throw new HostError('usage', `${task} has no step with matrix:`);
  const chosen = stepId === undefined ? (groups.length === 1 ? groups[0] : undefined) : groups.find((step) => step.id === stepId);
  if (!chosen) {
    const ids = groups.map((step) => step.id).join(', ');
    throw new HostError('usage', stepId === undefined ? `${task} has several matrix steps; pick one with --step (${ids})` : `${task} has no matrix step "${stepId}" (${ids})`);
  }
  return chosen;
}
