import { describe, expect, it } from 'vitest';
import { stepWait } from '../../src/workflow/step-wait.js';

const step = (fields: { dependencies?: number[]; conditionUsesStatus?: boolean; failureScope?: string }) => ({
  dependencies: fields.dependencies ?? [],
  conditionUsesStatus: fields.conditionUsesStatus ?? false,
  ...(fields.failureScope !== undefined && { failureScope: fields.failureScope }),
});

describe('what a step waits on before it is prepared', () => {
  it('is its dependencies for a step whose if: reads no status', () => {
    expect(stepWait(step({ dependencies: [0, 2] }))).toEqual({ kind: 'dependencies', steps: [0, 2] });
    expect(stepWait(step({}))).toEqual({ kind: 'dependencies', steps: [] });
  });

  it('is every earlier step for a step whose if: reads statuses, whatever it needs', () => {
    expect(stepWait(step({ dependencies: [1], conditionUsesStatus: true }))).toEqual({ kind: 'every_earlier' });
  });

  it('is every earlier step for a step of a group that runs after a failure (its calling step has if: always())', () => {
    expect(stepWait(step({ failureScope: 'build' }))).toEqual({ kind: 'every_earlier' });
  });
});
