import { describe, expect, it } from 'vitest';
import { acquireGuards, announceRoots } from '../../../src/tools/process/sandbox/guard-locks.js';

describe('guard locks', () => {
  it('lets one sandbox at a time guard a directory: a second waits for the first to be released', async () => {
    const first = await acquireGuards(['/work/a'], ['/work/a/dist'], undefined);
    const order: string[] = [];
    const second = acquireGuards(['/work/a', '/work/b'], ['/work/a/coverage'], undefined).then((leases) => {
      order.push('second');
      return leases;
    });
    // Another directory is free meanwhile.
    const other = await acquireGuards(['/work/c'], [], undefined);
    order.push('other');
    await Promise.resolve();
    expect(order).toEqual(['other']);
    order.push('first released');
    first.get('/work/a')!.release();
    const leases = await second;
    expect(order).toEqual(['other', 'first released', 'second']);
    for (const lease of [...leases.values(), ...other.values()]) lease.release();
  });

  it('gives up waiting when the step is stopped', async () => {
    const first = await acquireGuards(['/work/a'], [], undefined);
    const stop = new AbortController();
    const waiting = acquireGuards(['/work/a'], [], stop.signal);
    stop.abort();
    await expect(waiting).rejects.toMatchObject({ kind: 'cancelled' });
    first.get('/work/a')!.release();
    // Nothing is left held.
    const again = await acquireGuards(['/work/a'], [], undefined);
    again.get('/work/a')!.release();
  });

  it('exempts from a live guard what any sandbox launched meanwhile was granted, and the directories holding it', async () => {
    const leases = await acquireGuards(['/work'], ['/work/dist'], undefined);
    const lease = leases.get('/work')!;
    announceRoots(['/work/build/out', '/work/server.log']);
    expect(['/work/dist', '/work/build', '/work/server.log'].map((path) => lease.exempts(path))).toEqual([true, true, true]);
    expect(['/work/junk', '/work/build-old'].map((path) => lease.exempts(path))).toEqual([false, false]);
    lease.release();
  });
});
