/** How long aborted work gets to wind down (a tool killing its processes) before its caller stops waiting. */
export const abortGraceMs = 5_000;

/**
 * Settles with the work, or rejects with the signal's reason once it aborts: at once, or, with a
 * grace period, as soon as the work has wound down (at most `graceMs` later). Work that ignores
 * the signal cannot hang its caller.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal, graceMs = 0): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      if (graceMs <= 0) return reject(signal.reason);
      const grace = setTimeout(() => reject(signal.reason), graceMs);
      const settle = () => {
        clearTimeout(grace);
        reject(signal.reason);
      };
      work.then(settle, settle);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (!aborted) resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (!aborted) reject(error);
      },
    );
  });
}
