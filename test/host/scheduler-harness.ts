import { Scheduler, type Declaration, type SlotLease } from '../../src/host/scheduler.js';

/** Lets every promise callback queued so far run: no timers, no real waiting. */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Drives a Scheduler with fake calls: each call is declared, acquires, and is released by hand,
 * and every start, finish and rejection is written to `log` in the order it happened.
 */
export class FakeCalls {
  readonly scheduler: Scheduler;
  readonly log: string[] = [];
  readonly running = new Set<number>();
  readonly errors = new Map<number, unknown>();
  private readonly leases = new Map<number, SlotLease>();
  private readonly aborts = new Map<number, AbortController>();

  constructor(count: number, maxParallel: number) {
    this.scheduler = new Scheduler({ count, maxParallel });
  }

  declare(index: number, declaration: Declaration): void {
    this.scheduler.declare(index, declaration);
  }

  acquire(index: number): void {
    const controller = new AbortController();
    this.aborts.set(index, controller);
    this.scheduler.acquire(index, controller.signal).then(
      (lease) => {
        this.leases.set(index, lease);
        this.running.add(index);
        this.log.push(`start ${index}`);
      },
      (error: unknown) => {
        this.errors.set(index, error);
        this.log.push(`rejected ${index}`);
      },
    );
  }

  /** Declares and acquires, as a runner does once a call is prepared and authorized. */
  ready(index: number, declaration: Declaration): void {
    this.declare(index, declaration);
    this.acquire(index);
  }

  abort(index: number, reason: unknown = new Error(`call ${index} aborted`)): void {
    this.aborts.get(index)?.abort(reason);
  }

  finish(index: number): void {
    const lease = this.leases.get(index);
    if (!lease) throw new Error(`call ${index} is not running`);
    lease.release();
    this.running.delete(index);
    this.log.push(`finish ${index}`);
  }

  lease(index: number): SlotLease | undefined {
    return this.leases.get(index);
  }
}
