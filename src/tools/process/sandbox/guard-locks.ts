import { ToolError } from '../../../host/errors.js';
import { isWithin } from '../../../host/workspace.js';

/*
 * What keeps one sandbox's check of a guarded directory from undoing another's work, in this
 * process. The scheduler keeps steps whose guarded directories overlap apart (each holds its
 * directories exclusively), but a step that declares its own `resources:` replaces that, and a
 * background process holds nothing once started. So at launch, too:
 * - a directory is guarded by one live sandbox at a time: a second waits until the first is
 *   released (two checks of one directory could not tell their strays apart, and one would
 *   remove the other's temporary files while it still used them);
 * - the writable roots of every sandbox launched while a guard is live (and so the directories
 *   created for them) are never taken for the guarded process's own.
 */

interface LiveGuard {
  /** Roots of every sandbox launched while this guard was live, its own included. */
  exempt: Set<string>;
}

const live = new Set<LiveGuard>();
/** Per guarded directory: settles when its holder is released. */
const held = new Map<string, Promise<void>>();

/** One guarded directory held for one launch. */
export interface GuardLease {
  /** Whether `absolute` is, or holds, a root that some sandbox was granted while this guard was live. */
  exempts(absolute: string): boolean;
  release(): void;
}

/** Tells every live guard about a launch's writable roots, before anything is created for them. */
export function announceRoots(roots: readonly string[]): void {
  for (const guard of live) for (const root of roots) guard.exempt.add(root);
}

/** Waits until no live sandbox guards any of `directories`, then holds them; an abort while waiting throws the cancellation. */
export async function acquireGuards(directories: readonly string[], roots: readonly string[], signal: AbortSignal | undefined): Promise<Map<string, GuardLease>> {
  const leases = new Map<string, GuardLease>();
  try {
    // In one order, so that two launches waiting for the same directories cannot each hold one the other wants.
    for (const directory of [...directories].sort()) leases.set(directory, await acquireOne(directory, roots, signal));
  } catch (error) {
    for (const lease of leases.values()) lease.release();
    throw error;
  }
  return leases;
}

async function acquireOne(directory: string, roots: readonly string[], signal: AbortSignal | undefined): Promise<GuardLease> {
  for (let holder = held.get(directory); holder; holder = held.get(directory)) await settledOrAborted(holder, signal);
  let free!: () => void;
  held.set(directory, new Promise<void>((resolve) => (free = resolve)));
  const guard: LiveGuard = { exempt: new Set(roots) };
  live.add(guard);
  let released = false;
  return {
    exempts: (absolute) => [...guard.exempt].some((root) => isWithin(absolute, root)),
    release() {
      if (released) return;
      released = true;
      live.delete(guard);
      held.delete(directory);
      free();
    },
  };
}

function settledOrAborted(holder: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return holder;
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    void holder.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

function cancelled(): ToolError {
  return new ToolError('cancelled', 'the process was not started: its step was stopped while another sandbox held a directory it writes in');
}
