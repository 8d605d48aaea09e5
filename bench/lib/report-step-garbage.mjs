// Loaded with `node --import` into a measured process: from its 21st child on (warm code, the
// file loaded), counts what the process allocates (V8's sampling heap profiler, objects already
// collected included) and how many promises it creates, and writes both per child started, as
// JSON to $RHO_BENCH_GARBAGE_FILE when it exits. Both counts are the same on a loaded machine as on
// a quiet one, unlike the times, so a change to the per-process path can be compared exactly.
import { createHook } from 'node:async_hooks';
import { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const file = process.env.RHO_BENCH_GARBAGE_FILE;
const skipped = 20;
if (file) {
  const session = new Session();
  session.connect();
  let spawns = 0;
  let promises = 0;
  let counting = false;
  createHook({
    init(_id, type) {
      if (counting && type === 'PROMISE') promises++;
    },
  }).enable();
  const spawn = ChildProcess.prototype.spawn;
  ChildProcess.prototype.spawn = function countedSpawn(...args) {
    if (++spawns === skipped + 1) {
      counting = true;
      session.post('HeapProfiler.enable');
      session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    }
    return spawn.apply(this, args);
  };
  process.on('exit', () => {
    counting = false;
    const counted = spawns - skipped;
    if (counted <= 0) return writeFileSync(file, JSON.stringify({ spawns, allocatedKB: null, promises: null }));
    // The inspector answers synchronously on the session's own thread.
    session.post('HeapProfiler.stopSampling', (error, result) => {
      let bytes = 0;
      const add = (node) => {
        bytes += node.selfSize;
        node.children.forEach(add);
      };
      if (!error) add(result.profile.head);
      writeFileSync(file, JSON.stringify({ spawns, allocatedKB: error ? null : bytes / counted / 1024, promises: promises / counted }));
    });
  });
}
