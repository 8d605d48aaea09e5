import { DeclaredPrefix } from './declared-prefix.js';
import { Scheduler, type Declaration, type SlotLease } from './scheduler.js';

/** A one-shot signal. */
class Latch {
  done = false;
  readonly promise: Promise<void>;
  private resolve: () => void = () => {};

  constructor() {
    this.promise = new Promise<void>((resolve) => (this.resolve = resolve));
  }

  open(): void {
    this.done = true;
    this.resolve();
  }
}

/**
 * The model order of a host's calls: the scheduler, how far the calls are declared, and for
 * each call when it finished and when it stopped holding later calls back (it finished, will
 * never run, or runs detached). Numbers are handed out in submission order.
 */
export class CallOrder {
  private readonly scheduler: Scheduler;
  private readonly declared = new DeclaredPrefix();
  private readonly finished: Latch[] = [];
  private readonly released: Latch[] = [];

  constructor(readonly maxParallel: number) {
    this.scheduler = new Scheduler({ maxParallel });
  }

  /** Whether every call handed a number so far has finished or withdrawn. */
  get idle(): boolean {
    return this.scheduler.idle;
  }

  enqueue(): number {
    this.declared.extend();
    this.finished.push(new Latch());
    this.released.push(new Latch());
    return this.scheduler.enqueue();
  }

  releasedPromise(index: number): Promise<void> {
    return (this.released[index] as Latch).promise;
  }

  /** Whether every call before `index` stopped holding later calls back. */
  earlierReleased(index: number): boolean {
    for (let at = 0; at < index; at += 1) if (!(this.released[at] as Latch).done) return false;
    return true;
  }

  /** Settles once every call before `index` stopped holding later calls back. */
  async waitForEarlierReleased(index: number): Promise<void> {
    await Promise.all(this.released.slice(0, index).map((latch) => latch.promise));
  }

  declare(index: number, declaration: Declaration, detached: boolean): void {
    this.scheduler.declare(index, declaration, detached);
    this.declared.mark(index);
  }

  /**
   * Waits, holding no slot, until every earlier call is declared and none that conflicts with
   * this one is unfinished (what is left to wait for is a slot). Returns whether it waited for a
   * conflicting or exclusive call, whose effects the call has not seen. Each wait is for the
   * nearest earlier call that holds this one back, so a chain of conflicts costs one wait a call.
   */
  async waitForEarlierCalls(index: number, signal: AbortSignal): Promise<boolean> {
    await this.declared.before(index);
    let waitedForConflict = false;
    for (let reason = this.scheduler.waitReason(index); reason && reason.kind !== 'slot' && !signal.aborted; reason = this.scheduler.waitReason(index)) {
      waitedForConflict = true;
      await (this.finished[reason.index] as Latch).promise;
    }
    return waitedForConflict;
  }

  acquire(index: number, signal: AbortSignal): Promise<SlotLease> {
    return this.scheduler.acquire(index, signal);
  }

  /** The call runs detached: later calls no longer wait for it unless they conflict with it. */
  detach(index: number): void {
    (this.released[index] as Latch).open();
  }

  /** The call will never execute. */
  withdraw(index: number): void {
    this.scheduler.skip(index);
    this.settle(index);
  }

  /** The call executed and its result is recorded; `lease` gives its slot back. */
  finish(index: number, lease: SlotLease): void {
    this.settle(index);
    lease.release();
  }

  private settle(index: number): void {
    this.declared.mark(index);
    (this.finished[index] as Latch).open();
    (this.released[index] as Latch).open();
  }
}
