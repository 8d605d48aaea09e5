/**
 * A wall-clock limit that can be paused (while a person answers a question) and that aborts
 * its signal when it runs out.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private remainingMs: number;
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private pauses = 0;

  constructor(
    readonly limitMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.remainingMs = limitMs;
    this.resume();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get expired(): boolean {
    return this.controller.signal.aborted;
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
    this.timer = setTimeout(() => this.controller.abort(new Error('timeout')), Math.max(0, this.remainingMs));
    this.timer.unref?.();
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
