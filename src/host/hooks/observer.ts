import { ToolError } from '../errors.js';
import type { HookEnvelope } from './envelope.js';
import type { ObservedKind } from './kinds.js';
import type { HookLatency } from './latency.js';

/**
 * Receives every delivered observational event. Called on the run's path, so it must enqueue
 * and return: never wait, never throw.
 */
export interface HookObserver {
  observe(envelope: HookEnvelope): void;
}

/** An observer that does real work (runs a program, writes a log); `ObserverQueue` calls it off the run's path. */
export interface AsyncHookObserver {
  readonly name: string;
  /** The kinds it receives; every observed kind when undefined. */
  readonly kinds: readonly ObservedKind[] | undefined;
  deliver(envelope: HookEnvelope, signal: AbortSignal): Promise<void>;
}

export interface ObserverQueueOptions {
  /** Events that may wait for one observer; more are dropped and counted. */
  capacity: number;
  latency: HookLatency;
  /** Observer failures and drops are warnings: they never fail the run. */
  onWarning(message: string): void;
}

export interface ObserverLaneReport {
  name: string;
  delivered: number;
  failed: number;
  dropped: number;
}

export interface ObserverDrainReport {
  /** True when the deadline passed with events still pending (they were dropped, running deliveries cancelled). */
  timedOut: boolean;
  observers: ObserverLaneReport[];
}

export const defaultObserverCapacity = 256;
export const defaultDrainTimeoutMs = 5_000;

/**
 * A bounded queue per observer in front of async observers. `observe` only enqueues, so a slow
 * or failing observer never slows or fails the run; events beyond the capacity are dropped and
 * counted. `drain` waits for the queues at the end of a run, but no longer than its deadline.
 */
export class ObserverQueue implements HookObserver {
  private readonly lanes: Lane[];
  private readonly cancel = new AbortController();
  private closed = false;

  constructor(observers: readonly AsyncHookObserver[], options: ObserverQueueOptions) {
    this.lanes = observers.map((observer) => new Lane(observer, options, this.cancel.signal));
    for (const observer of observers) options.latency.register(observer.name, 'observer');
  }

  get size(): number {
    return this.lanes.length;
  }

  observe(envelope: HookEnvelope): void {
    if (envelope.kind === 'before_tool_use') return;
    for (const lane of this.lanes) {
      if (lane.accepts(envelope.kind)) lane.enqueue(envelope, this.closed);
    }
  }

  /** Stops accepting events and waits for pending ones until `deadlineMs`; then cancels the rest. */
  async drain(deadlineMs: number): Promise<ObserverDrainReport> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), deadlineMs);
    });
    const idle = Promise.all(this.lanes.map((lane) => lane.idle())).then(() => false as const);
    const timedOut = await Promise.race([idle, expired]);
    clearTimeout(timer);
    if (timedOut) {
      this.cancel.abort(new ToolError('timeout', 'the observer drain deadline passed'));
      for (const lane of this.lanes) lane.abandon();
    }
    for (const lane of this.lanes) lane.warnAboutDrops();
    return { timedOut, observers: this.lanes.map((lane) => lane.report()) };
  }

  report(): ObserverLaneReport[] {
    return this.lanes.map((lane) => lane.report());
  }
}

class Lane {
  private readonly pending: HookEnvelope[] = [];
  private active: Promise<void> | undefined;
  private inFlight = false;
  private abandoned = false;
  private delivered = 0;
  private failed = 0;
  private dropped = 0;

  constructor(
    private readonly observer: AsyncHookObserver,
    private readonly options: ObserverQueueOptions,
    private readonly signal: AbortSignal,
  ) {}

  accepts(kind: ObservedKind): boolean {
    return this.observer.kinds === undefined || this.observer.kinds.includes(kind);
  }

  enqueue(envelope: HookEnvelope, closed: boolean): void {
    if (closed || this.pending.length >= this.options.capacity) {
      this.drop(1);
      return;
    }
    this.pending.push(envelope);
    this.active ??= this.pump();
  }

  idle(): Promise<void> {
    return this.active ?? Promise.resolve();
  }

  /** After the deadline: what waits and what runs will not be delivered. */
  abandon(): void {
    this.abandoned = true;
    this.drop(this.pending.length + (this.inFlight ? 1 : 0));
    this.pending.length = 0;
  }

  warnAboutDrops(): void {
    if (this.dropped > 0) {
      this.options.onWarning(`observer ${this.observer.name}: ${this.dropped} event(s) dropped (queue full or drain deadline passed)`);
    }
  }

  report(): ObserverLaneReport {
    return { name: this.observer.name, delivered: this.delivered, failed: this.failed, dropped: this.dropped };
  }

  private drop(count: number): void {
    if (count === 0) return;
    this.dropped += count;
    this.options.latency.recordDropped(this.observer.name, count);
  }

  private async pump(): Promise<void> {
    // Yield first so that even starting a delivery happens after the run's own work.
    await new Promise((resolve) => setImmediate(resolve));
    for (let envelope = this.pending.shift(); envelope && !this.abandoned; envelope = this.pending.shift()) {
      await this.deliver(envelope);
    }
    this.active = undefined;
  }

  private async deliver(envelope: HookEnvelope): Promise<void> {
    const startedAt = performance.now();
    this.inFlight = true;
    try {
      await this.observer.deliver(envelope, this.signal);
      if (this.abandoned) return;
      this.delivered += 1;
      this.options.latency.record(this.observer.name, 'observer', performance.now() - startedAt, true);
    } catch (cause) {
      if (this.abandoned) return;
      this.failed += 1;
      this.options.latency.record(this.observer.name, 'observer', performance.now() - startedAt, false);
      this.options.onWarning(`observer ${this.observer.name} failed on ${envelope.kind}: ${(cause as Error).message}`);
    } finally {
      this.inFlight = false;
    }
  }
}
