// Loaded with `node --import` into a measured process: times every child it starts and writes,
// when it exits, the median time inside `spawn()` (libuv's fork and exec), from `spawn()` to the
// child's exit, from one child's close to the next `spawn()` (the parent's own work between two
// processes), and the anonymous memory at every 50th spawn, as JSON to $RHO_BENCH_GAP_FILE.
import { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.env.RHO_BENCH_GAP_FILE;
if (file) {
  const spawnMs = [];
  const exitMs = [];
  const gapMs = [];
  const anonMB = [];
  let lastClose;
  const spawn = ChildProcess.prototype.spawn;
  ChildProcess.prototype.spawn = function timedSpawn(...args) {
    const startedAt = performance.now();
    if (lastClose !== undefined) gapMs.push(startedAt - lastClose);
    const result = spawn.apply(this, args);
    const spawnedAt = performance.now();
    spawnMs.push(spawnedAt - startedAt);
    this.once('exit', () => exitMs.push(performance.now() - spawnedAt));
    this.once('close', () => (lastClose = performance.now()));
    if (spawnMs.length % 50 === 0) anonMB.push(Number(/RssAnon:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024);
    return result;
  };
  const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? null;
  process.on('exit', () => writeFileSync(file, JSON.stringify({ spawns: spawnMs.length, spawnMs: median(spawnMs), exitMs: median(exitMs), gapMs: median(gapMs), anonMB })));
}
