/** Lets one prompt at a time use the terminal (questions and approvals may be waiting together). */
export interface PromptLock {
  run<T>(work: () => Promise<T>): Promise<T>;
}

/** A first-come, first-served lock. The approver and the questioner of one run should share one. */
export function createPromptLock(): PromptLock {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(work: () => Promise<T>): Promise<T> {
      const turn = tail.then(() => work());
      tail = turn.catch(() => undefined);
      return turn;
    },
  };
}
