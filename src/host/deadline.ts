/** The longest delay one timer holds (Node's setTimeout fires at once past it). */
const maxTimerMs = 2 ** 31 - 1;

/**
 * A wall-clock limit that can be paused (while a person answers a question) and that calls
 * `onExpire` once when it runs out. Its timer keeps the process alive: a call that outlives its
 * limit always ends with a result, even in a script with nothing else to wait for. A limit
 * longer than a timer holds is kept with several timers in turn.
 */
export class Deadline {
  private ranOut = false;
  private remainingMs: number;
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private pauses = 0;

  constructor(
    readonly limitMs: number,
    private readonly onExpire: () => void,
    private readonly now: () => number = Date.now,
  ) {
    this.remainingMs = limitMs;
    this.resume();
  }

  get expired(): boolean {
    return this.ranOut;
  }

  pause(): void {
    if (this.pauses++ > 0 || this.expired) return;
    clearTimeout(this.timer);
    this.remainingMs -= this.now() - this.startedAt;
  }

  resume(): void {
    if (this.pauses > 0 && --this.pauses > 0) return;
    if (this.expired) return;
    this.startedAt = this.now();
    const delayMs = Math.min(Math.max(0, this.remainingMs), maxTimerMs);
    this.timer = setTimeout(() => {
      this.remainingMs -= this.now() - this.startedAt;
      if (this.remainingMs > 0) return this.resume();
      this.ranOut = true;
      this.onExpire();
    }, delayMs);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
