import { describe, expect, it } from 'vitest';
import { DeclaredPrefix } from '../../src/host/declared-prefix.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('DeclaredPrefix', () => {
  it('wakes a step once every step before it is marked, whatever order the marks arrive in', async () => {
    const prefix = new DeclaredPrefix(4);
    const woken: number[] = [];
    for (const index of [0, 1, 2, 3]) void prefix.before(index).then(() => woken.push(index));
    await settle();
    expect(woken).toEqual([0]);
    prefix.mark(2);
    prefix.mark(1);
    await settle();
    expect(woken).toEqual([0]);
    prefix.mark(0);
    await settle();
    expect(woken).toEqual([0, 1, 2, 3]);
  });

  it('answers at once for a step whose predecessors are already marked', async () => {
    const prefix = new DeclaredPrefix(3);
    prefix.mark(0);
    prefix.mark(1);
    let woken = false;
    void prefix.before(2).then(() => (woken = true));
    await settle();
    expect(woken).toBe(true);
  });
});
