import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';

/** Whether a process exists and is not a zombie (PID 1 may take seconds to reap an orphan). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Waits until a process is gone; false if it is still there after `withinMs`. */
export async function waitUntilGone(pid: number, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (isAlive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Pids of the living processes whose working directory is `cwd` (what a workflow run there started). */
export function processesIn(cwd: string): number[] {
  const canonical = realpathSync(cwd);
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readlinkSync(`/proc/${name}/cwd`) === canonical;
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(isAlive);
}
