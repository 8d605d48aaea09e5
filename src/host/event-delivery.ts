import type { RunEvent } from './events.js';
import { droppedProgressMessage, ProgressQueue, roomOfAll } from './progress-queue.js';

/**
 * Receives the events of a host's calls and of the runs it reports. A listener may be
 * synchronous or return a promise; either way it is beside the calls, never on their path.
 */
export type EventListener = (event: RunEvent) => unknown;

/** How long one turn of delivery may run listeners before it lets the calls go on. */
const sliceMs = 10;

/** One listener and the events waiting for it. */
class Subscription {
  readonly queue: ProgressQueue<RunEvent>;
  /** Its promise for an earlier event has not settled yet. */
  busy = false;
  /** It threw once already: later failures are not reported again. */
  failed = false;
  removed = false;

  constructor(
    readonly listener: EventListener,
    keepOutput: boolean,
  ) {
    this.queue = new ProgressQueue<RunEvent>((dropped, stepId) => ({ type: 'step_progress', stepId, message: droppedProgressMessage(dropped) }), keepOutput);
  }

  get idle(): boolean {
    return this.removed || (!this.busy && this.queue.empty);
  }
}

/**
 * Delivers events to listeners off the calls' path. Emitting only queues: listeners are called
 * on a later turn of the event loop, each with the events in the order they were emitted; a
 * listener that returns a promise gets its next event once that promise settles. Nothing a
 * listener does — throwing, rejecting, never settling, taking long — holds a call back or
 * changes an outcome: what it throws or rejects with is reported once through `warn`. A listener
 * that falls behind keeps at most `maxQueuedProgress` progress messages (the rest are dropped
 * and counted in a notice); every other event is kept. With `keepOutput` (every byte of output
 * is to be shown), the progress carrying a process's output is kept too, and `room()` tells its
 * writers to wait while a listener is that far behind: the output slows down, as a pipe's writer
 * waits for its reader, instead of being lost.
 */
export class EventDelivery {
  readonly #subscriptions: Subscription[] = [];
  #scheduled = false;
  #waiters: (() => void)[] = [];

  constructor(
    private readonly warn: (message: string) => void,
    private readonly keepOutput = false,
  ) {}

  /** Adds a listener; returns a function that removes it (events still queued for it are dropped). */
  add(listener: EventListener): () => void {
    const subscription = new Subscription(listener, this.keepOutput);
    this.#subscriptions.push(subscription);
    return () => {
      subscription.removed = true;
      subscription.queue.clear();
      const index = this.#subscriptions.indexOf(subscription);
      if (index >= 0) this.#subscriptions.splice(index, 1);
      this.#settleWaiters();
    };
  }

  /**
   * While a listener is `maxQueuedOutput` output messages behind (only with `keepOutput`), a
   * promise that settles once every listener has room again; otherwise undefined, at no cost.
   */
  room(): Promise<void> | undefined {
    return roomOfAll(this.#subscriptions.map((subscription) => subscription.queue.room()));
  }

  deliver(event: RunEvent): void {
    if (this.#subscriptions.length === 0) return;
    for (const subscription of this.#subscriptions) subscription.queue.push(event);
    this.#schedule();
  }

  /** Resolves once every event delivered so far has reached its listeners and their promises have settled. */
  flushed(): Promise<void> {
    if (this.#idle()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #idle(): boolean {
    return this.#subscriptions.every((subscription) => subscription.idle);
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#drain());
  }

  #drain(): void {
    this.#scheduled = false;
    const started = performance.now();
    for (const subscription of [...this.#subscriptions]) {
      while (!subscription.busy && !subscription.removed) {
        const event = subscription.queue.take();
        if (!event) break;
        this.#call(subscription, event);
        if (performance.now() - started > sliceMs) {
          // Listeners have had their turn: the calls go on, delivery resumes on the next one.
          this.#schedule();
          return;
        }
      }
    }
    this.#settleWaiters();
  }

  #call(subscription: Subscription, event: RunEvent): void {
    let returned: unknown;
    try {
      returned = subscription.listener(event);
    } catch (thrown) {
      this.#failed(subscription, thrown);
      return;
    }
    if (!isThenable(returned)) return;
    subscription.busy = true;
    Promise.resolve(returned)
      .catch((thrown: unknown) => this.#failed(subscription, thrown))
      .finally(() => {
        subscription.busy = false;
        if (subscription.queue.empty) this.#settleWaiters();
        else this.#schedule();
      });
  }

  #failed(subscription: Subscription, thrown: unknown): void {
    if (subscription.failed) return;
    subscription.failed = true;
    this.warn(`an event listener failed (${(thrown as Error)?.message ?? String(thrown)}); its later failures are not reported`);
  }

  #settleWaiters(): void {
    if (this.#waiters.length === 0 || !this.#idle()) return;
    for (const resolve of this.#waiters.splice(0)) resolve();
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
