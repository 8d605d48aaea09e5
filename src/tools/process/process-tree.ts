import { readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a process group gets to exit after SIGTERM before it is sent SIGKILL. */
export const terminationGraceMs = 1000;

const pollIntervalMs = 25;
/** How long to wait for the kernel to remove a group after SIGKILL before giving up on it. */
export const killSettleMs = 2000;

/** Whether a process exists and is not a zombie, read from Linux's /proc. */
export function isProcessRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name, which may itself contain spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Reads `/proc/PID/<file>` of every process, in turn, until `visit` returns true; a process
 * that ends meanwhile is skipped. False where /proc cannot be read.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a visitor that returns nothing lets the scan go on, which only `void` accepts
export function scanProcesses(file: 'stat' | 'status', visit: (pid: number, text: string) => boolean | void): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${entry}/${file}`, 'utf8');
    } catch {
      continue;
    }
    if (visit(Number(entry), text) === true) break;
  }
  return true;
}

/**
 * Whether a group still has a member that is not a zombie, read from Linux's /proc. A killed
 * grandchild is re-parented to PID 1, which may take seconds to reap it; until then `kill(0)`
 * still finds it, though it is already dead. Undefined where /proc is not available.
 */
function hasLiveMember(pgid: number): boolean | undefined {
  let found = false;
  const scanned = scanProcesses('stat', (_pid, stat) => {
    // Fields after the command name, which may itself contain spaces and parentheses.
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    found = Number(group) === pgid && state !== 'Z';
    return found;
  });
  return scanned ? found : undefined;
}

/**
 * kill(2) of a group with signal 0, answering the errno (0 when some member exists) instead of
 * throwing. `process.kill` builds an error with a full stack for ESRCH, which is the usual answer
 * here: every process call asks once its child has exited, and the error cost more than the
 * system call. `process._kill` is what `process.kill` calls underneath (Node 20 to 24); where a
 * Node lacks it, the public call answers the same.
 */
const rawKill = (process as { _kill?: unknown })._kill;
function probeGroup(pgid: number): number {
  if (typeof rawKill === 'function') return (rawKill as (pid: number, signal: number) => number).call(process, -pgid, 0);
  try {
    process.kill(-pgid, 0);
    return 0;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? -constants.errno.EPERM : -constants.errno.ESRCH;
  }
}

/** Whether any living process of the group led by `pgid` still exists. */
export function isGroupAlive(pgid: number): boolean {
  const errno = probeGroup(pgid);
  if (errno !== 0 && errno !== -constants.errno.EPERM) return false;
  return hasLiveMember(pgid) ?? true;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Polls until `alive` says no; false if it still says yes after `withinMs`. */
export async function waitWhile(alive: () => boolean, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (alive()) {
    if (Date.now() >= until) return false;
    await sleep(pollIntervalMs);
  }
  return true;
}

const waitForGroupExit = (pgid: number, withinMs: number) => waitWhile(() => isGroupAlive(pgid), withinMs);

/**
 * Process groups rho started and has not yet seen disappear. If rho itself exits (a second
 * Ctrl-C, an uncaught error) while some are alive, they are killed on the way out: a child
 * leads its own group, so nothing else would stop it.
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killLiveGroupsOnExit(): void {
  for (const pgid of liveGroups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // Already gone: nothing to do on the way out.
    }
  }
}

export function trackGroup(pgid: number): void {
  if (!exitHookInstalled) {
    process.on('exit', killLiveGroupsOnExit);
    exitHookInstalled = true;
  }
  liveGroups.add(pgid);
}

/** Forgets a group once it is known to be empty, so its id can never be signalled after reuse. */
export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/**
 * Stops every process of a group, grandchildren included: SIGTERM, then SIGKILL for whatever is
 * left after the grace period. Resolves once the group is gone (or the kernel did not remove it
 * within a bounded wait after SIGKILL, which only a process stuck in the kernel can cause).
 * `askToExit` replaces the SIGTERM to the group, for a leader that passes no signal on (a sandbox).
 */
export async function terminateGroup(pgid: number, graceMs: number = terminationGraceMs, askToExit = () => signalGroup(pgid, 'SIGTERM')): Promise<void> {
  askToExit();
  if (!(await waitForGroupExit(pgid, graceMs))) {
    signalGroup(pgid, 'SIGKILL');
    await waitForGroupExit(pgid, killSettleMs);
  }
  if (!isGroupAlive(pgid)) untrackGroup(pgid);
}
