import { isProcessRunning, killSettleMs, scanProcesses, terminateGroup, waitWhile } from '../../process-tree.js';

/** A process as /proc shows it: its parent, and its pid in the innermost PID namespace it is in. */
interface ProcessEntry {
  pid: number;
  parent: number;
  innermostPid: number;
}

function readProcesses(): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  scanProcesses('status', (pid, status) => {
    const parent = /^PPid:\s+(\d+)/m.exec(status)?.[1];
    const namespaced = /^NSpid:\s+([\d\s]+)$/m.exec(status)?.[1]?.trim().split(/\s+/);
    if (parent !== undefined && namespaced !== undefined) entries.push({ pid, parent: Number(parent), innermostPid: Number(namespaced.at(-1)) });
  });
  return entries;
}

/**
 * The processes a sandbox runs, found through /proc: every descendant of bubblewrap (the group
 * leader rho spawned) except the init process of the sandbox's PID namespace (PID 1 there),
 * which bubblewrap runs to reap orphans and which takes no signal it has no handler for. Under
 * `--unshare-pid` the layout is bubblewrap → its init → the program → what it started.
 */
export function sandboxPrograms(leader: number): number[] {
  const processes = readProcesses();
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of processes) children.set(entry.parent, [...(children.get(entry.parent) ?? []), entry]);
  const found: number[] = [];
  const pending = [...(children.get(leader) ?? [])];
  while (pending.length > 0) {
    const entry = pending.pop()!;
    if (entry.innermostPid !== 1) found.push(entry.pid);
    pending.push(...(children.get(entry.pid) ?? []));
  }
  return found;
}

/**
 * Stops a confined process as an unconfined one is stopped: SIGTERM to the program and
 * everything it started, so its `trap … TERM` cleanup runs and its output still reaches rho,
 * then, once the grace period is over, SIGKILL to bubblewrap, which ends the whole sandbox
 * (`--die-with-parent`). bubblewrap passes no signal on, and a SIGTERM to it would end the
 * sandbox at once. Resolves once every process of the sandbox is gone, so what it wrote can be
 * checked. Before the program has started (bubblewrap still mounting), bubblewrap itself is stopped.
 */
export async function terminateSandbox(leader: number, graceMs: number): Promise<void> {
  const programs = sandboxPrograms(leader);
  if (programs.length === 0) return terminateGroup(leader, graceMs);
  await terminateGroup(leader, graceMs, () => {
    for (const pid of programs) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
  });
  // After a SIGKILL, the kernel empties the PID namespace a moment after bubblewrap is gone.
  await waitWhile(() => programs.some(isProcessRunning), killSettleMs);
}
