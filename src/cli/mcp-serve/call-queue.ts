/**
 * Runs calls one at a time, in the order they arrive. Two runs of one workspace at once would
 * race for its files and its up-to-date state, which one host's scheduler orders within a run
 * but not across runs. A call cancelled while it waits leaves the queue without running.
 */
export class CallQueue {
  private tail: Promise<void> = Promise.resolve();

  async run<T>(signal: AbortSignal, call: () => Promise<T>, cancelled: () => T): Promise<T> {
    const turn = this.tail;
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    // The next call waits for this one's turn too: a call that leaves early never lets it start beside a running one.
    this.tail = turn.then(() => done);
    try {
      const aborted = new Promise<'aborted'>((resolve) => {
        if (signal.aborted) resolve('aborted');
        signal.addEventListener('abort', () => resolve('aborted'), { once: true });
      });
      if ((await Promise.race([turn, aborted])) === 'aborted') return cancelled();
      return await call();
    } finally {
      release();
    }
  }
}
