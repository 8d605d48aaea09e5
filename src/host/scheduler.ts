import { ScheduleBook } from './schedule-book.js';
import type { Declaration, WaitReason } from './schedule-types.js';

export type { Declaration, WaitReason } from './schedule-types.js';
export { planWaves, type PlanStep, type PlanWait, type StepWait } from './plan-waves.js';

/** The right to execute, held from `acquire` until `release`. Releasing twice is harmless. */
export interface SlotLease {
  release(): void;
}

const listenOnce = { once: true } as const;

/** A call waiting for a slot; it listens for its signal's abort itself. */
class Waiter {
  constructor(
    readonly index: number,
    readonly signal: AbortSignal,
    readonly resolve: (lease: SlotLease) => void,
    readonly reject: (reason: unknown) => void,
    private readonly onAbort: (waiter: Waiter) => void,
  ) {}

  handleEvent(): void {
    this.onAbort(this);
  }
}

class Lease implements SlotLease {
  private released = false;

  constructor(
    private readonly index: number,
    private readonly onRelease: (index: number) => void,
  ) {}

  release(): void {
    if (this.released) return;
    this.released = true;
    this.onRelease(this.index);
  }
}

/**
 * Decides when prepared calls may execute. Calls are numbered in model order (0, 1, …; a
 * schedule can grow with `enqueue`). A call is declared once it is prepared — before it is
 * authorized, so a call waiting for approval holds back only the later calls that conflict with
 * it — and asks for a lease only once it is authorized, so approval waits never hold a slot; it
 * then executes and releases the lease.
 *
 * A call may start when a slot is free (at most `maxParallel` leases are held), every earlier
 * call has been declared, skipped or finished, no earlier unfinished call conflicts with it or
 * is exclusive, and — if it is exclusive itself — every earlier call has finished. Later calls
 * never delay earlier ones except by competing for slots; a freed slot goes to the lowest ready
 * index. Every decision is taken synchronously inside these methods, so the same sequence of
 * calls gives the same start order.
 *
 * Detached calls take their leases from a second pool of `maxParallel` slots: nobody waits for
 * them, so they must never starve the calls in model order (at one slot a detached call and the
 * next call run side by side). Their plans are shared-only (see `detachRefusal`), so later calls
 * wait for one only when they take exclusive access to a resource it touches or are exclusive.
 */
export class Scheduler {
  private readonly book: ScheduleBook;
  /** Per call number: the waiting call's promise, until it is granted a slot or withdrawn. */
  private readonly waiters: Array<Waiter | undefined>;

  constructor(options: { count?: number; maxParallel: number }) {
    const count = options.count ?? 0;
    this.book = new ScheduleBook(count, options.maxParallel);
    this.waiters = new Array<undefined>(count).fill(undefined);
  }

  /** Adds a call after the last one in model order; returns its number. */
  enqueue(): number {
    this.waiters.push(undefined);
    return this.book.add();
  }

  /** Whether every call so far has finished. */
  get idle(): boolean {
    return this.book.idle;
  }

  /** The call at `index` has been prepared: what it will touch is known. */
  declare(index: number, declaration: Declaration, detached = false): void {
    this.book.declare(index, declaration, detached);
    this.startReady();
  }

  /** The call at `index` will never execute (skipped, failed in preparation, denied): it counts as finished. */
  skip(index: number): void {
    this.book.skip(index);
    this.startReady();
  }

  /**
   * Resolves when the declared call may start. If `signal` aborts first, the promise rejects
   * with `signal.reason` and the call is withdrawn: it holds no slot and counts as finished, so
   * later calls no longer wait for it.
   */
  acquire(index: number, signal: AbortSignal): Promise<SlotLease> {
    if (signal.aborted) {
      this.book.withdraw(index);
      this.startReady();
      return Promise.reject(signal.reason);
    }
    this.book.request(index);
    return new Promise<SlotLease>((resolve, reject) => {
      const waiter = new Waiter(index, signal, resolve, reject, this.withdrawAborted);
      this.waiters[index] = waiter;
      signal.addEventListener('abort', waiter, listenOnce);
      this.startReady();
    });
  }

  /** For displays: why the call is waiting now, or undefined when it is not waiting. */
  waitReason(index: number): WaitReason | undefined {
    return this.book.waitReason(index);
  }

  // Made once per scheduler, so that a call's wait and lease are plain objects, not closures.
  private readonly withdrawAborted = (waiter: Waiter): void => {
    this.waiters[waiter.index] = undefined;
    this.book.withdraw(waiter.index);
    waiter.reject(waiter.signal.reason);
    this.startReady();
  };

  private readonly finishLeased = (index: number): void => {
    this.book.finish(index);
    this.startReady();
  };

  private startReady(): void {
    for (const index of this.book.startReady()) {
      const waiter = this.waiters[index];
      if (!waiter) continue;
      this.waiters[index] = undefined;
      waiter.signal.removeEventListener('abort', waiter);
      waiter.resolve(new Lease(index, this.finishLeased));
    }
  }
}
