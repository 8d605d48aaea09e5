import type { StepWait } from '../host/plan-waves.js';
import type { CompiledStep } from './model.js';

/** Whether a step decides whether it runs only after every earlier step: its `if:`, or its group's, reads statuses. */
export function decidesAlone(step: Pick<CompiledStep, 'conditionUsesStatus' | 'failureScope'>): boolean {
  return step.conditionUsesStatus || step.failureScope !== undefined;
}

/**
 * What a step waits on before it is prepared, for the runner and the planner alike: a step that
 * decides alone waits for every earlier step to be over, as its `if:` reads how they ended; any
 * other step waits only for its dependencies (`needs:`, the step before in a sequential task,
 * the steps its expressions read).
 */
export function stepWait(step: Pick<CompiledStep, 'conditionUsesStatus' | 'failureScope' | 'dependencies'>): StepWait {
  return decidesAlone(step) ? { kind: 'every_earlier' } : { kind: 'dependencies', steps: step.dependencies };
}
