/** How long aborted work gets to wind down (a tool killing its processes) before its caller stops waiting. */
export const abortGraceMs = 5_000;

/** The controllers following each signal, reached through one listener per signal. */
const followers = new WeakMap<AbortSignal, Set<AbortController>>();

function followersOf(parent: AbortSignal): Set<AbortController> {
  let following = followers.get(parent);
  if (!following) {
    const created = new Set<AbortController>();
    parent.addEventListener(
      'abort',
      () => {
        for (const follower of created) follower.abort(parent.reason);
        created.clear();
      },
      { once: true },
    );
    followers.set(parent, created);
    following = created;
  }
  return following;
}

/**
 * A controller that aborts with `parent` until `dispose()`, for work that can also be stopped on
 * its own (a call's deadline). AbortSignal.any would cost a second controller per call and, on
 * Node 20, about 20 µs and a weak reference held by the parent. Every follower of a signal is
 * reached through one listener on it, so parallel calls on one run's signal neither slow each
 * new listener down (Node compares it with every other) nor trip the max-listeners warning.
 */
export function followingController(parent: AbortSignal): { controller: AbortController; dispose(): void } {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, dispose: () => {} };
  }
  const following = followersOf(parent);
  following.add(controller);
  return { controller, dispose: () => following.delete(controller) };
}

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
