/**
 * A wall-clock limit that can be paused (while a person answers a question) and that calls
 * `onExpire` once when it runs out.
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
    this.timer = setTimeout(() => {
      this.ranOut = true;
      this.onExpire();
    }, Math.max(0, this.remainingMs));
    this.timer.unref?.();
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
