export interface CountdownEvents {
  /** Once a second while running, so the display can show the seconds left. */
  tick(): void;
  /** The time ran out before anyone stopped it. */
  expire(): void;
}

/**
 * The timer of a questionnaire with a fallback. It starts when the form opens and ends one of
 * two ways: it expires, or it is stopped because the person started answering — and a stopped
 * countdown never runs again, so nothing is submitted for someone who is typing.
 */
export class Countdown {
  private state: 'running' | 'stopped' | 'expired' = 'running';
  private readonly deadline: number;
  private readonly expiry: NodeJS.Timeout;
  private readonly ticker: NodeJS.Timeout;

  constructor(
    seconds: number,
    events: CountdownEvents,
    private readonly now: () => number = Date.now,
  ) {
    this.deadline = now() + seconds * 1000;
    this.expiry = setTimeout(() => {
      if (this.state !== 'running') return;
      this.state = 'expired';
      clearInterval(this.ticker);
      events.expire();
    }, seconds * 1000);
    this.ticker = setInterval(() => {
      if (this.state === 'running') events.tick();
    }, 1000);
  }

  get running(): boolean {
    return this.state === 'running';
  }

  get expired(): boolean {
    return this.state === 'expired';
  }

  remainingSeconds(): number {
    return Math.max(0, Math.ceil((this.deadline - this.now()) / 1000));
  }

  /** Stops for good (the person started answering, or the form closed). */
  stop(): void {
    if (this.state === 'running') this.state = 'stopped';
    clearTimeout(this.expiry);
    clearInterval(this.ticker);
  }
}
