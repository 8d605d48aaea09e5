/**
 * Hands out turns at the approver one at a time, in arrival order. A person answers one prompt
 * at a time, and a request queued behind an identical one can then reuse an "allow for this
 * run" answer instead of asking twice. A waiter whose signal aborts leaves the queue at once.
 */
export class ApprovalTurns {
  private busy = false;
  private readonly waiting: Array<{ grant: () => void }> = [];

  /** Resolves with a release function when it is this caller's turn; rejects with `onAbort()` if the signal aborts first. */
  acquire(signal: AbortSignal, onAbort: () => Error): Promise<() => void> {
    if (signal.aborted) return Promise.reject(onAbort());
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal.removeEventListener('abort', leave);
          resolve(this.releaser());
        },
      };
      const leave = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(onAbort());
      };
      signal.addEventListener('abort', leave, { once: true });
      this.waiting.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.busy = false;
    };
  }
}
