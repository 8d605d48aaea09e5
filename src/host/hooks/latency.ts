export type HookRole = 'gate' | 'observer';

export interface HookLatencyEntry {
  name: string;
  role: HookRole;
  /** Times the hook ran (skipped gates, whose tools filter did not match, are not counted). */
  runs: number;
  /** Runs that failed: a gate that failed closed or was let through by on_error, an observer that failed. */
  failures: number;
  totalMs: number;
  maxMs: number;
  meanMs: number;
  /** Observer events dropped because its queue was full or the drain deadline passed. */
  dropped: number;
}

export interface HookLatencyReport {
  hooks: HookLatencyEntry[];
}

/** Per-hook timing for the run summary; hooks are listed in the order they were configured. */
export class HookLatency {
  private readonly entries = new Map<string, HookLatencyEntry>();

  register(name: string, role: HookRole): void {
    if (!this.entries.has(name)) this.entries.set(name, { name, role, runs: 0, failures: 0, totalMs: 0, maxMs: 0, meanMs: 0, dropped: 0 });
  }

  record(name: string, role: HookRole, durationMs: number, ok: boolean): void {
    const entry = this.entry(name, role);
    entry.runs += 1;
    if (!ok) entry.failures += 1;
    entry.totalMs += durationMs;
    entry.maxMs = Math.max(entry.maxMs, durationMs);
    entry.meanMs = entry.totalMs / entry.runs;
  }

  recordDropped(name: string, count = 1): void {
    this.entry(name, 'observer').dropped += count;
  }

  report(): HookLatencyReport {
    return {
      hooks: [...this.entries.values()].map((entry) => ({
        ...entry,
        totalMs: Math.round(entry.totalMs),
        maxMs: Math.round(entry.maxMs),
        meanMs: Math.round(entry.meanMs),
      })),
    };
  }

  private entry(name: string, role: HookRole): HookLatencyEntry {
    this.register(name, role);
    return this.entries.get(name) as HookLatencyEntry;
  }
}
