import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Fails the test run if any process a test started is still alive at the end.
 *
 * Two nets catch them (Linux `/proc`): a watcher records every descendant of this vitest
 * process while the run goes on (a leaked process is seen while its parent, a test worker, is
 * still alive — before it is orphaned), and a marker variable every worker inherits finds
 * orphans whose environment kept it. Direct children of vitest (its workers) are the runner's
 * own and are left alone.
 */

const markerName = 'RHO_TEST_RUN_MARKER';
const marker = randomUUID();
const scanIntervalMs = 100;
/** Time given at the end for processes a test is still stopping (a SIGKILL after a grace period). */
const settleMs = 4000;

interface ProcessFacts {
  pid: number;
  ppid: number;
  startTime: string;
  state: string;
}

interface Sighting extends ProcessFacts {
  command: string;
}

const sightings = new Map<number, Sighting>();
let watcher: NodeJS.Timeout | undefined;

function readFacts(pid: number): ProcessFacts | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: parse after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, state: fields[0]!, ppid: Number(fields[1]), startTime: fields[19]! };
  } catch {
    return undefined;
  }
}

function readCommand(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '?';
  }
}

function carriesMarker(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`${markerName}=${marker}`);
  } catch {
    return false;
  }
}

function allProcesses(): ProcessFacts[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readFacts(Number(name)))
    .filter((facts): facts is ProcessFacts => facts !== undefined);
}

function isRunnerOwn(facts: ProcessFacts): boolean {
  return facts.pid === process.pid || facts.ppid === process.pid;
}

/** Records every descendant of this process that is not one of vitest's own workers. */
function scan(): void {
  const table = allProcesses();
  const parents = new Map(table.map((facts) => [facts.pid, facts.ppid]));
  for (const facts of table) {
    if (isRunnerOwn(facts) || sightings.has(facts.pid)) continue;
    let ancestor = facts.ppid;
    for (let depth = 0; ancestor > 1 && depth < 64; depth++) {
      if (ancestor === process.pid) {
        sightings.set(facts.pid, { ...facts, command: readCommand(facts.pid) });
        break;
      }
      ancestor = parents.get(ancestor) ?? 0;
    }
  }
}

function isStillAlive(sighting: Sighting): boolean {
  const now = readFacts(sighting.pid);
  return now !== undefined && now.startTime === sighting.startTime && now.state !== 'Z';
}

function leftovers(): Sighting[] {
  scan();
  for (const facts of allProcesses()) {
    if (!isRunnerOwn(facts) && facts.state !== 'Z' && !sightings.has(facts.pid) && carriesMarker(facts.pid)) {
      sightings.set(facts.pid, { ...facts, command: readCommand(facts.pid) });
    }
  }
  return [...sightings.values()].filter(isStillAlive);
}

export function setup(): void {
  if (process.platform !== 'linux') return;
  process.env[markerName] = marker;
  watcher = setInterval(scan, scanIntervalMs);
  watcher.unref();
}

export async function teardown(): Promise<void> {
  if (process.platform !== 'linux') return;
  clearInterval(watcher);
  const until = Date.now() + settleMs;
  let alive = leftovers();
  while (alive.length > 0 && Date.now() < until) {
    await sleep(100);
    alive = alive.filter(isStillAlive);
  }
  if (alive.length === 0) return;
  for (const leftover of alive) {
    try {
      process.kill(leftover.pid, 'SIGKILL');
    } catch {
      // It ended between the check and the kill: nothing left to clean up.
    }
  }
  process.exitCode = 1;
  const list = alive.map((leftover) => `  pid ${leftover.pid}: ${leftover.command}`).join('\n');
  throw new Error(`tests left ${alive.length} process(es) running (now killed):\n${list}`);
}
