import { ConflictIndex } from './conflict-index.js';
import { HostError, ToolError } from './errors.js';
import type { Blocker, Declaration, WaitReason } from './schedule-types.js';
import { insertSorted } from './sorted-indices.js';

/** Lets a simulation (`planWaves`) see each time a call is found blocked or ready. */
export interface ScheduleObserver {
  blocked?(index: number, blocker: Blocker): void;
  ready?(index: number): void;
}

type CallState = 'pending' | 'declared' | 'waiting' | 'running' | 'finished';

export function validateMaxParallel(maxParallel: number): void {
  if (!Number.isInteger(maxParallel) || maxParallel < 1) {
    throw new HostError('invalid_configuration', `maxParallel must be a whole number of at least 1 (got ${maxParallel})`);
  }
}

/** Waiting calls are mostly held in the order they asked, so sorting them can usually be skipped. */
function isAscending(indices: readonly number[]): boolean {
  for (let at = 1; at < indices.length; at += 1) if ((indices[at - 1] as number) > (indices[at] as number)) return false;
  return true;
}

function misuse(message: string): ToolError {
  return new ToolError('internal', message);
}

/**
 * The scheduler's bookkeeping, synchronous and free of promises so that the live scheduler and
 * the planner share one set of rules. Calls are numbered in model order. A call may start when
 * a slot is free, every earlier call is declared (or finished), and no earlier unfinished call
 * conflicts with it or is exclusive; an exclusive call also needs every earlier call finished.
 *
 * A waiting call remembers the nearest earlier call that blocks it and is looked at again only
 * when that call changes state, so each event costs work only for the calls it can release.
 * Conflicting calls finish in model order, so the nearest blocker is usually the last to finish.
 */
export class ScheduleBook {
  private readonly states: CallState[];
  /** Per call number: whether it runs detached, counted against its own pool of slots. */
  private readonly detached: boolean[];
  // Per call number, in arrays rather than maps: a map's hash table is rebuilt as it grows and
  // shrinks, which a long run pays for in allocation and garbage collection.
  /** Waiting calls held back by an earlier call, and the reason. */
  private readonly blockers: Array<Blocker | undefined>;
  /** Earlier call → the waiting calls it holds back. */
  private readonly holding: Array<number[] | undefined>;
  /** Waiting calls that need only a slot, in ascending index order. */
  private readonly ready: number[] = [];
  private readonly conflicts: ConflictIndex;
  private firstPending = 0;
  /** Running calls in model order, and running detached calls: each kind has `maxParallel` slots. */
  private running = 0;
  private runningDetached = 0;
  private size: number;

  constructor(
    count: number,
    readonly maxParallel: number,
    private readonly observer: ScheduleObserver = {},
  ) {
    if (!Number.isInteger(count) || count < 0) throw misuse(`a schedule needs a whole number of calls (got ${count})`);
    validateMaxParallel(maxParallel);
    this.size = count;
    this.states = new Array<CallState>(count).fill('pending');
    this.detached = new Array<boolean>(count).fill(false);
    this.blockers = new Array<undefined>(count).fill(undefined);
    this.holding = new Array<undefined>(count).fill(undefined);
    this.conflicts = new ConflictIndex(count);
  }

  /** How many calls the schedule holds (finished ones included). */
  get count(): number {
    return this.size;
  }

  /** Adds one call after the last; returns its number. */
  add(): number {
    const index = this.size++;
    this.states.push('pending');
    this.detached.push(false);
    this.blockers.push(undefined);
    this.holding.push(undefined);
    this.conflicts.extend();
    return index;
  }

  /** Whether every call so far has finished (nothing declared, waiting or running). */
  get idle(): boolean {
    return this.firstPending >= this.size && this.running === 0 && this.runningDetached === 0 && this.conflicts.empty;
  }

  /**
   * A detached call runs beside the calls in model order, in a pool of `maxParallel` slots of
   * its own: work that nobody waits for never takes the slot a later step needs.
   */
  declare(index: number, declaration: Declaration, detached = false): void {
    this.expectState(index, ['pending'], 'declare');
    this.states[index] = 'declared';
    this.detached[index] = detached;
    this.conflicts.add(index, declaration);
    while (this.firstPending < this.size && this.states[this.firstPending] !== 'pending') this.firstPending += 1;
    this.release(index);
  }

  /** The call will never execute; finished calls stay finished. */
  skip(index: number): void {
    if (this.stateOf(index) === 'finished') return;
    this.expectState(index, ['pending', 'declared'], 'skip');
    this.markFinished(index);
  }

  /** The declared call asks to start: it becomes ready or waits on an earlier call. */
  request(index: number): void {
    this.expectState(index, ['declared'], 'acquire');
    this.states[index] = 'waiting';
    this.evaluate(index);
  }

  /** The call gave up before starting (its wait was aborted): it will never execute. */
  withdraw(index: number): void {
    this.expectState(index, ['declared', 'waiting'], 'withdraw');
    const blocker = this.blockers[index];
    this.blockers[index] = undefined;
    const queue = blocker ? this.holding[blocker.index] : this.ready;
    const position = queue?.indexOf(index) ?? -1;
    if (position >= 0) queue?.splice(position, 1);
    this.markFinished(index);
  }

  /** A running call ended and gives back its slot. */
  finish(index: number): void {
    this.expectState(index, ['running'], 'release');
    if (this.detached[index]) this.runningDetached -= 1;
    else this.running -= 1;
    this.markFinished(index);
  }

  /** Starts the lowest ready calls while slots are free; returns them in the order they started. */
  startReady(): number[] {
    const started: number[] = [];
    let at = 0;
    while (at < this.ready.length && (this.running < this.maxParallel || this.runningDetached < this.maxParallel)) {
      const index = this.ready[at] as number;
      if (!this.hasSlotFor(index)) {
        at += 1;
        continue;
      }
      this.ready.splice(at, 1);
      this.states[index] = 'running';
      if (this.detached[index]) this.runningDetached += 1;
      else this.running += 1;
      started.push(index);
    }
    return started;
  }

  private hasSlotFor(index: number): boolean {
    return this.detached[index] ? this.runningDetached < this.maxParallel : this.running < this.maxParallel;
  }

  /** Why a declared call has not started; undefined when it is not waiting on anything. */
  waitReason(index: number): WaitReason | undefined {
    switch (this.stateOf(index)) {
      case 'waiting':
        return this.blockers[index] ?? { kind: 'slot' };
      case 'declared':
        return this.findBlocker(index) ?? (this.hasSlotFor(index) ? undefined : { kind: 'slot' });
      default:
        return undefined;
    }
  }

  private markFinished(index: number): void {
    this.states[index] = 'finished';
    this.conflicts.forget(index);
    while (this.firstPending < this.size && this.states[this.firstPending] !== 'pending') this.firstPending += 1;
    this.release(index);
  }

  /** Looks again at the waiting calls that `index` was holding back. */
  private release(index: number): void {
    const held = this.holding[index];
    if (!held) return;
    this.holding[index] = undefined;
    if (!isAscending(held)) held.sort((a, b) => a - b);
    for (const waiting of held) {
      this.blockers[waiting] = undefined;
      this.evaluate(waiting);
    }
  }

  private evaluate(index: number): void {
    const blocker = this.findBlocker(index);
    if (blocker) {
      this.blockers[index] = blocker;
      const held = this.holding[blocker.index];
      if (held) held.push(index);
      else this.holding[blocker.index] = [index];
      this.observer.blocked?.(index, blocker);
      return;
    }
    insertSorted(this.ready, index);
    this.observer.ready?.(index);
  }

  /** The earlier call that keeps `index` from starting: the first undeclared one, else the nearest that conflicts. */
  private findBlocker(index: number): Blocker | undefined {
    if (this.firstPending < index) return { kind: 'undeclared', index: this.firstPending };
    return this.conflicts.nearestBlocker(index);
  }

  private stateOf(index: number): CallState {
    if (!Number.isInteger(index) || index < 0 || index >= this.size) {
      throw misuse(`call index ${index} is outside this schedule of ${this.size} calls`);
    }
    return this.states[index] as CallState;
  }

  private expectState(index: number, allowed: readonly CallState[], action: string): void {
    const state = this.stateOf(index);
    if (!allowed.includes(state)) throw misuse(`cannot ${action} call ${index}: it is ${state}`);
  }
}
