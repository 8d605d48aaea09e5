import { describe, expect, it } from 'vitest';
import { SessionState, type SessionKey } from '../../src/host/session-state.js';

describe('SessionState', () => {
  it('creates a value once per key and runs its disposers newest first, collecting notices', async () => {
    const order: string[] = [];
    let created = 0;
    const key: SessionKey<{ id: number }> = {
      name: 'counter',
      create(session) {
        created++;
        session.onDispose(() => {
          order.push('counter');
          return ['counter stopped'];
        });
        return { id: created };
      },
    };
    const session = new SessionState();
    session.onDispose(async () => {
      order.push('first');
    });
    expect(session.use(key)).toBe(session.use(key));
    expect(created).toBe(1);
    expect(await session.dispose()).toEqual(['counter stopped']);
    expect(order).toEqual(['counter', 'first']);
    expect(await session.dispose()).toEqual([]);
    expect(() => session.use(key)).toThrow(/after the run ended/);
  });

  it('keeps disposing when one disposer fails, and reports the failure', async () => {
    const session = new SessionState();
    let ran = false;
    session.onDispose(() => {
      ran = true;
    });
    session.onDispose(() => {
      throw new Error('boom');
    });
    expect(await session.dispose()).toEqual(['cleaning up the session failed: boom']);
    expect(ran).toBe(true);
  });
});
