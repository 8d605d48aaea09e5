import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConflictIndex } from '../../src/host/conflict-index.js';
import { accessesConflict, opaqueKey, type Resource, type ResourceAccess } from '../../src/host/resources.js';
import type { Blocker, Declaration } from '../../src/host/schedule-types.js';

const somePath = fc
  .tuple(fc.array(fc.constantFrom('a', 'b', 'bc'), { maxLength: 3 }), fc.boolean())
  .map(([parts, trailing]) => `/${parts.join('/')}${trailing && parts.length > 0 ? '/' : ''}`);
const someResource: fc.Arbitrary<Resource> = fc.oneof(
  somePath.map((path): Resource => ({ kind: 'path', path })),
  somePath.map((path): Resource => ({ kind: 'tree', path })),
  fc.constantFrom('1', '2').map((id): Resource => ({ kind: 'process', id })),
  fc.constant<Resource>({ kind: 'session' }),
  fc.tuple(fc.constantFrom('git', 'npm'), fc.constantFrom('index', 'git')).map(([owner, key]) => opaqueKey(owner, key)),
);
const someAccess: fc.Arbitrary<ResourceAccess> = fc.record({ mode: fc.constantFrom('shared', 'exclusive'), resource: someResource });
const someDeclaration: fc.Arbitrary<Declaration> = fc.oneof(
  { weight: 1, arbitrary: fc.constant('exclusive' as const) },
  { weight: 6, arbitrary: fc.array(someAccess, { maxLength: 3 }) },
);

/** The definition the index must agree with: the nearest earlier live call that is a barrier or conflicts. */
function expectedBlocker(declarations: readonly Declaration[], live: ReadonlySet<number>, index: number): Blocker | undefined {
  const mine = declarations[index]!;
  for (let earlier = index - 1; earlier >= 0; earlier -= 1) {
    if (!live.has(earlier)) continue;
    const theirs = declarations[earlier]!;
    if (mine === 'exclusive' || theirs === 'exclusive') return { kind: 'barrier', index: earlier };
    const clash = mine.find((access) => theirs.some((other) => accessesConflict(access, other)));
    if (clash) return { kind: 'conflict', index: earlier, resourceKind: clash.resource.kind };
  }
  return undefined;
}

describe('ConflictIndex', () => {
  it('finds exactly the nearest earlier unfinished call that conflicts or is a barrier', () => {
    fc.assert(
      fc.property(
        fc.array(someDeclaration, { minLength: 1, maxLength: 16 }).chain((declarations) =>
          fc.record({
            declarations: fc.constant(declarations),
            // Calls are added and finish in any order: out-of-order entries and removals must hold too.
            addOrder: fc.shuffledSubarray([...declarations.keys()], { minLength: declarations.length }),
            finishOrder: fc.shuffledSubarray([...declarations.keys()]),
          }),
        ),
        ({ declarations, addOrder, finishOrder }) => {
          const index = new ConflictIndex(declarations.length);
          const live = new Set<number>();
          const check = (): void => {
            for (const call of live) expect(index.nearestBlocker(call)).toEqual(expectedBlocker(declarations, live, call));
          };
          for (const call of addOrder) {
            index.add(call, declarations[call]!);
            live.add(call);
          }
          check();
          for (const call of finishOrder) {
            index.forget(call);
            live.delete(call);
            check();
          }
          expect(index.nearestBlocker(finishOrder[0] ?? -1)).toBeUndefined();
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps finding blockers through many calls entered under the same paths', () => {
    const count = 300;
    const index = new ConflictIndex(count);
    const access = (call: number): ResourceAccess => ({
      mode: call % 3 === 0 ? 'exclusive' : 'shared',
      resource: { kind: 'path', path: `/w/d${call % 4}/f${call % 8}.txt` },
    });
    const live = new Set<number>();
    const declarations: Declaration[] = [];
    for (let call = 0; call < count; call += 1) {
      declarations.push(call % 50 === 49 ? 'exclusive' : [access(call), shared({ kind: 'tree', path: `/w/d${call % 5}` })]);
      index.add(call, declarations[call]!);
      live.add(call);
      // Finish calls mostly in order, with some left behind, as a parallel run does.
      if (call >= 10 && call % 7 !== 0) {
        index.forget(call - 10);
        live.delete(call - 10);
      }
      expect(index.nearestBlocker(call)).toEqual(expectedBlocker(declarations, live, call));
    }
    for (const call of live) expect(index.nearestBlocker(call)).toEqual(expectedBlocker(declarations, live, call));
  });
});

function shared(resource: Resource): ResourceAccess {
  return { mode: 'shared', resource };
}
