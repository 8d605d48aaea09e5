import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HostError } from '../../src/host/errors.js';
import { accessesConflict, exclusive, shared, type ResourceAccess } from '../../src/host/resources.js';
import { planWaves, type Declaration, type StepWait } from '../../src/host/scheduler.js';

const writes = (path: string): ResourceAccess[] => [exclusive({ kind: 'path', path })];
const reads = (path: string): ResourceAccess[] => [shared({ kind: 'path', path })];
const none: ResourceAccess[] = [];

/** The waits of steps that depend on the steps listed for each. */
const dependingOn = (dependencies: readonly (readonly number[])[]): StepWait[] => dependencies.map((steps) => ({ kind: 'dependencies', steps }));

const waves = (steps: ReturnType<typeof planWaves>): number[] => steps.map((step) => step.wave);

describe('planWaves', () => {
  it('puts independent steps in one wave when slots allow', () => {
    const steps = planWaves([none, none, none, none], 8, []);
    expect(waves(steps)).toEqual([1, 1, 1, 1]);
    expect(steps.every((step) => step.waitsFor.length === 0 && !step.waitsForSlot)).toBe(true);
  });

  it('spreads independent steps over waves of max_parallel, lowest index first', () => {
    const steps = planWaves([none, none, none, none, none], 2, []);
    expect(waves(steps)).toEqual([1, 1, 2, 2, 3]);
    expect(steps.map((step) => step.waitsForSlot)).toEqual([false, false, true, true, true]);
  });

  it('orders conflicting steps and names the resource kind they wait on', () => {
    const steps = planWaves([writes('/w/a'), reads('/w/b'), writes('/w/a'), reads('/w/a')], 4, []);
    expect(waves(steps)).toEqual([1, 1, 2, 3]);
    expect(steps[2]?.waitsFor).toEqual([{ kind: 'conflict', index: 0, resourceKind: 'path' }]);
    expect(steps[3]?.waitsFor).toEqual([{ kind: 'conflict', index: 2, resourceKind: 'path' }]);
  });

  it('runs an exclusive step alone as a barrier', () => {
    const steps = planWaves([none, reads('/w/a'), 'exclusive', none, none], 4, []);
    expect(waves(steps)).toEqual([1, 1, 2, 3, 3]);
    expect(steps[2]?.waitsFor).toEqual([{ kind: 'barrier', index: 1 }]);
    expect(steps[3]?.waitsFor).toEqual([{ kind: 'barrier', index: 2 }]);
    expect(steps[4]?.waitsFor).toEqual([{ kind: 'barrier', index: 2 }]);
  });

  it('lists each earlier step that held a step back in turn, once each', () => {
    const tree = [exclusive({ kind: 'tree', path: '/w' })];
    const steps = planWaves([writes('/w/a'), writes('/w/a'), writes('/w/b'), tree], 4, []);
    expect(waves(steps)).toEqual([1, 2, 1, 3]);
    expect(steps[1]?.waitsFor).toEqual([{ kind: 'conflict', index: 0, resourceKind: 'path' }]);
    expect(steps[3]?.waitsFor).toEqual([
      { kind: 'conflict', index: 2, resourceKind: 'tree' },
      { kind: 'conflict', index: 1, resourceKind: 'tree' },
    ]);
  });

  it('starts a step after its dependencies and holds later steps until it is declared', () => {
    const steps = planWaves([none, none, none, none], 4, dependingOn([[], [0], [], [1]]));
    expect(waves(steps)).toEqual([1, 2, 2, 3]);
    expect(steps[1]?.waitsFor).toEqual([{ kind: 'dependency', index: 0 }]);
    expect(steps[2]?.waitsFor).toEqual([{ kind: 'undeclared', index: 1 }]);
    expect(steps[3]?.waitsFor).toEqual([{ kind: 'dependency', index: 1 }]);
  });

  it('declares a step that waits on every earlier step only once they have all finished', () => {
    const steps = planWaves([none, none, none, none], 4, [...dependingOn([[], [], []]), { kind: 'every_earlier' }]);
    expect(waves(steps)).toEqual([1, 1, 1, 2]);
    expect(steps[3]?.waitsFor).toEqual([0, 1, 2].map((index) => ({ kind: 'dependency', index })));
  });

  it('does not report a wait on a sibling declared in the same instant', () => {
    const steps = planWaves([none, none, none], 4, dependingOn([[], [0], [0]]));
    expect(waves(steps)).toEqual([1, 2, 2]);
    expect(steps[2]?.waitsFor).toEqual([{ kind: 'dependency', index: 0 }]);
  });

  it('refuses dependencies on later steps and a max_parallel below 1', () => {
    expect(() => planWaves([none, none], 1, dependingOn([[1], []]))).toThrow(/not an earlier step/);
    expect(() => planWaves([none], 0, [])).toThrow(HostError);
    expect(planWaves([], 1, [])).toEqual([]);
  });

  it('never puts conflicting steps, or more than max_parallel, in one wave, and honours dependencies', () => {
    const access = fc.record({
      mode: fc.constantFrom('shared', 'exclusive'),
      resource: fc.constantFrom<ResourceAccess['resource']>({ kind: 'path', path: '/w/a' }, { kind: 'path', path: '/w/b' }, { kind: 'tree', path: '/w' }, { kind: 'session' }),
    });
    const declaration = fc.oneof({ weight: 1, arbitrary: fc.constant<Declaration>('exclusive') }, { weight: 5, arbitrary: fc.array(access, { maxLength: 2 }) });
    const plan = fc.array(fc.tuple(declaration, fc.array(fc.nat(), { maxLength: 2 })), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(plan, fc.integer({ min: 1, max: 4 }), (entries, maxParallel) => {
        const declarations = entries.map(([d]) => d);
        const dependencies = entries.map(([, deps], index) => (index === 0 ? [] : deps.map((d) => d % index)));
        const steps = planWaves(declarations, maxParallel, dependingOn(dependencies));
        const violations: string[] = [];
        const perWave = new Map<number, number>();
        for (const step of steps) perWave.set(step.wave, (perWave.get(step.wave) ?? 0) + 1);
        for (const [wave, size] of perWave) if (size > maxParallel) violations.push(`wave ${wave} runs ${size}`);
        for (const step of steps) {
          for (const dependency of dependencies[step.index]!) {
            if (steps[dependency]!.wave >= step.wave) violations.push(`${step.index} runs with its dependency ${dependency}`);
          }
          for (let earlier = 0; earlier < step.index; earlier += 1) {
            const a = declarations[earlier]!;
            const b = declarations[step.index]!;
            const clash = a === 'exclusive' || b === 'exclusive' || a.some((x) => b.some((y) => accessesConflict(x, y)));
            if (clash && steps[earlier]!.wave >= step.wave) violations.push(`${step.index} runs with or before ${earlier}`);
          }
        }
        expect(steps.map((step) => step.index)).toEqual(declarations.map((_, index) => index));
        expect(violations).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
