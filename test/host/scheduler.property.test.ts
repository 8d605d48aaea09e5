import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accessesConflict, type Resource, type ResourceAccess } from '../../src/host/resources.js';
import type { Declaration } from '../../src/host/scheduler.js';
import { FakeCalls, settle } from './scheduler-harness.js';

const resource: fc.Arbitrary<Resource> = fc.oneof(
  fc.constantFrom('/w/a', '/w/a/b', '/w/ab', '/w/c').map((path): Resource => ({ kind: 'path', path })),
  fc.constantFrom('/w', '/w/a', '/w/c').map((path): Resource => ({ kind: 'tree', path })),
  fc.constantFrom('1', '2').map((id): Resource => ({ kind: 'process', id })),
  fc.constant<Resource>({ kind: 'session' }),
  fc.constantFrom('git', 'npm').map((owner): Resource => ({ kind: 'key', owner, key: 'index' })),
);
const access: fc.Arbitrary<ResourceAccess> = fc.record({ mode: fc.constantFrom('shared', 'exclusive'), resource });
const declaration: fc.Arbitrary<Declaration> = fc.oneof({ weight: 1, arbitrary: fc.constant('exclusive' as const) }, { weight: 6, arbitrary: fc.array(access, { maxLength: 3 }) });
const call = fc.record({ declaration, skipped: fc.nat(5).map((n) => n === 0), abortable: fc.boolean() });

/** Whether two calls may never overlap in time. */
function mustNotOverlap(a: Declaration, b: Declaration): boolean {
  if (a === 'exclusive' || b === 'exclusive') return true;
  return a.some((x) => b.some((y) => accessesConflict(x, y)));
}

type Action = { type: 'declare' | 'skip' | 'acquire' | 'finish' | 'abort'; index: number };

describe('scheduler properties', () => {
  it('never overlaps conflicting calls, keeps their model order, bounds parallelism and never deadlocks', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(call, { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 60 }),
        async (calls, maxParallel, choices) => {
          const fake = new FakeCalls(calls.length, maxParallel);
          const state = calls.map(() => 'pending' as 'pending' | 'declared' | 'waiting' | 'running' | 'done');
          const violations: string[] = [];
          const startedBefore = new Set<number>();

          const checkStart = (index: number): void => {
            const mine = calls[index]!.declaration;
            if (fake.running.size > maxParallel) violations.push(`${fake.running.size} running with max ${maxParallel}`);
            for (const other of fake.running) {
              if (other !== index && mustNotOverlap(mine, calls[other]!.declaration)) violations.push(`${index} overlaps ${other}`);
            }
            for (let earlier = 0; earlier < index; earlier += 1) {
              if (state[earlier] === 'pending') violations.push(`${index} started before ${earlier} was declared`);
              if (mustNotOverlap(mine, calls[earlier]!.declaration) && state[earlier] !== 'done') {
                violations.push(`${index} started before conflicting ${earlier} finished`);
              }
            }
          };

          for (let turn = 0; ; turn += 1) {
            await settle();
            for (const index of fake.errors.keys()) state[index] = 'done';
            for (const index of fake.running) {
              if (!startedBefore.has(index)) {
                startedBefore.add(index);
                checkStart(index);
                state[index] = 'running';
              }
            }

            const actions: Action[] = [];
            state.forEach((s, index) => {
              if (s === 'pending') actions.push({ type: calls[index]!.skipped ? 'skip' : 'declare', index });
              if (s === 'declared') actions.push({ type: 'acquire', index });
              if (s === 'waiting' && calls[index]!.abortable) actions.push({ type: 'abort', index });
              if (s === 'running') actions.push({ type: 'finish', index });
            });
            if (actions.length === 0) {
              const stuck = state.flatMap((s, index) => (s === 'done' ? [] : [`${index}:${s}`]));
              if (stuck.length > 0) violations.push(`deadlock with ${stuck.join(', ')}`);
              break;
            }
            const action = actions[choices[turn % choices.length]! % actions.length]!;
            switch (action.type) {
              case 'declare':
                fake.declare(action.index, calls[action.index]!.declaration);
                state[action.index] = 'declared';
                break;
              case 'skip':
                fake.scheduler.skip(action.index);
                state[action.index] = 'done';
                break;
              case 'acquire':
                fake.acquire(action.index);
                state[action.index] = 'waiting';
                break;
              case 'abort':
                fake.abort(action.index);
                break;
              case 'finish':
                fake.finish(action.index);
                state[action.index] = 'done';
                break;
            }
          }

          expect(violations).toEqual([]);
          const expectedToRun = calls.flatMap((c, index) => (c.skipped || fake.errors.has(index) ? [] : [index]));
          expect([...startedBefore].sort((a, b) => a - b)).toEqual(expectedToRun);
        },
      ),
      { numRuns: 300 },
    );
  });
});
