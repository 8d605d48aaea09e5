import { ToolError } from './errors.js';
import { ScheduleBook, validateMaxParallel } from './schedule-book.js';
import type { Blocker, Declaration } from './schedule-types.js';

/** What a step waits on before it is prepared: every earlier step, or the steps it depends on (`stepWait` of src/workflow/step-wait.ts). */
export type StepWait = { kind: 'every_earlier' } | { kind: 'dependencies'; steps: readonly number[] };

/** Something a step waited on before it could start: a dependency, or an earlier call holding it back. */
export type PlanWait = { kind: 'dependency'; index: number } | Blocker;

export interface PlanStep {
  index: number;
  /** 1-based: steps in the same wave run together. */
  wave: number;
  /** Dependencies first, then each earlier call that held the step back, in the order met. */
  waitsFor: PlanWait[];
  /** True when the step was otherwise ready but every slot was taken. */
  waitsForSlot: boolean;
}

/**
 * Simulates the scheduler with every call taking one unit of time, without executing anything,
 * to show which steps run together and what each waits on. A step is declared once what it waits
 * on has finished (`stepWaits`; nothing when absent), as the runner can prepare it only then;
 * dependencies must be earlier steps.
 */
export function planWaves(declarations: readonly Declaration[], maxParallel: number, stepWaits: readonly StepWait[]): PlanStep[] {
  validateMaxParallel(maxParallel);
  const count = declarations.length;
  const dependsOn = declarations.map((_, index) => awaitedSteps(stepWaits[index], index));
  const dependents = declarations.map((): number[] => []);
  for (const [index, earlier] of dependsOn.entries()) for (const dependency of earlier) dependents[dependency]?.push(index);

  const waits: PlanWait[][] = dependsOn.map((earlier) => earlier.map((index) => ({ kind: 'dependency', index })));
  const noted = new Set<string>();
  const readyAt = new Array<number>(count).fill(0);
  let wave = 1;
  const book = new ScheduleBook(count, maxParallel, {
    blocked(index, blocker) {
      const key = `${index} ${blocker.kind} ${blocker.index}`;
      if (noted.has(key)) return;
      noted.add(key);
      waits[index]?.push(blocker);
    },
    ready(index) {
      readyAt[index] = wave;
    },
  });
  // Steps that become preparable together are all declared before any asks to start, so none
  // is reported waiting on a sibling that is declared in the same instant.
  const enter = (indices: readonly number[]): void => {
    const ordered = [...indices].sort((a, b) => a - b);
    for (const index of ordered) book.declare(index, declarations[index] as Declaration);
    for (const index of ordered) book.request(index);
  };

  const remaining = dependsOn.map((earlier) => earlier.length);
  enter(declarations.flatMap((_, index) => (remaining[index] === 0 ? [index] : [])));
  const steps: PlanStep[] = [];
  while (steps.length < count) {
    const started = book.startReady();
    if (started.length === 0) {
      throw new ToolError('internal', 'the plan cannot make progress: a step waits on a step that never starts');
    }
    for (const index of started) {
      steps.push({ index, wave, waitsFor: waits[index] ?? [], waitsForSlot: (readyAt[index] as number) < wave });
    }
    wave += 1;
    // Everything in a wave ends at the same moment: finish them all before preparing their dependents.
    for (const index of started) book.finish(index);
    const preparable: number[] = [];
    for (const index of started) {
      for (const dependent of dependents[index] ?? []) {
        remaining[dependent] = (remaining[dependent] as number) - 1;
        if (remaining[dependent] === 0) preparable.push(dependent);
      }
    }
    enter(preparable);
  }
  return steps.sort((a, b) => a.index - b.index);
}

/** The earlier steps a wait names, each once, in order. */
function awaitedSteps(wait: StepWait | undefined, index: number): number[] {
  if (wait?.kind === 'every_earlier') return Array.from({ length: index }, (_, earlier) => earlier);
  const dependencies = wait?.steps ?? [];
  for (const dependency of dependencies) {
    if (!Number.isInteger(dependency) || dependency < 0 || dependency >= index) {
      throw new ToolError('internal', `step ${index} depends on ${dependency}, which is not an earlier step`);
    }
  }
  return [...new Set(dependencies)].sort((a, b) => a - b);
}
