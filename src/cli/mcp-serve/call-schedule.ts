import os from 'node:os';
import type { Declaration } from '../../host/schedule-types.js';
import { Scheduler, type SlotLease } from '../../host/scheduler.js';

/**
 * The server's calls on one schedule, as a run's steps are: each holds what it touches (see
 * `callDeclaration`), calls that touch nothing in common run side by side up to one per core,
 * and conflicting ones start in the order they arrived. A call cancelled while it waits leaves
 * the schedule without running and holds nobody back.
 */
export class CallSchedule {
  private readonly scheduler = new Scheduler({ maxParallel: os.availableParallelism() });

  async run<T>(declaration: Declaration, signal: AbortSignal, call: () => Promise<T>, cancelled: () => T): Promise<T> {
    const index = this.scheduler.enqueue();
    this.scheduler.declare(index, declaration);
    let lease: SlotLease;
    try {
      lease = await this.scheduler.acquire(index, signal);
    } catch {
      return cancelled();
    }
    try {
      return await call();
    } finally {
      lease.release();
    }
  }
}
