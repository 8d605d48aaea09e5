import { exclusive, opaqueKey, shared, type Resource } from '../../src/host/resources.js';
import { Scheduler, type Declaration } from '../../src/host/scheduler.js';
import type { SuiteResult } from '../lib/figures.js';
import { seededRandom } from '../lib/random.js';
import { formatNumber } from '../lib/stats.js';
import { medianTimes } from '../lib/tiny.js';

export interface SchedulerSizes {
  /** Step counts compared; the last is ten times the first. */
  steps: readonly [number, number];
  maxParallel: number;
  iterations: number;
}

export const schedulerSizes = {
  full: { steps: [1_000, 10_000], maxParallel: 4, iterations: 10 },
  quick: { steps: [100, 1_000], maxParallel: 4, iterations: 2 },
} satisfies Record<string, SchedulerSizes>;

/**
 * Random declarations over a pool that grows with the run (one file per 10 steps, ten files a
 * directory, one key per 20 steps): 1–3 accesses per step, a quarter of them exclusive, a mix
 * of files, directory trees and opaque keys, and one step in 200 exclusive as a whole (a barrier).
 */
function makeDeclarations(count: number, seed: number): Declaration[] {
  const random = seededRandom(seed);
  const files = Math.max(10, Math.floor(count / 10));
  const directories = Math.max(1, Math.floor(files / 10));
  const keys = Math.max(1, Math.floor(count / 20));
  const resource = (): Resource => {
    const roll = random();
    const file = Math.floor(random() * files);
    if (roll < 0.7) return { kind: 'path', path: `/w/d${file % directories}/f${file}.txt` };
    if (roll < 0.85) return { kind: 'tree', path: `/w/d${Math.floor(random() * directories)}` };
    return opaqueKey('bench', `k${Math.floor(random() * keys)}`);
  };
  return Array.from({ length: count }, (): Declaration => {
    if (random() < 0.005) return 'exclusive';
    const accesses = 1 + Math.floor(random() * 3);
    return Array.from({ length: accesses }, () => (random() < 0.25 ? exclusive(resource()) : shared(resource())));
  });
}

/**
 * Declares every step, asks for every slot, and releases each lease as soon as it is granted.
 * Each step waits on a signal of its own, as in a parallel run (many listeners on one signal
 * make Node's addEventListener quadratic); a plain controller keeps AbortSignal.any's own cost
 * (≈ 30 µs, measured in the step path) out of the scheduler's figure.
 */
async function schedule(declarations: readonly Declaration[], maxParallel: number): Promise<void> {
  const scheduler = new Scheduler({ count: declarations.length, maxParallel });
  const finished = declarations.map((declaration, index) => {
    scheduler.declare(index, declaration);
    return scheduler.acquire(index, new AbortController().signal).then((lease) => lease.release());
  });
  await Promise.all(finished);
}

/**
 * The same steps with no scheduler: a signal and a settled promise each, all alive together as
 * in `schedule`. Shown beside the scheduler's growth: Node's own cost of keeping that many
 * pending steps (allocation and garbage collection of a live set that grows with N).
 */
async function scaffold(declarations: readonly Declaration[]): Promise<void> {
  const finished = declarations.map(() => {
    const signal = new AbortController().signal;
    return Promise.resolve(signal).then((held) => held.aborted);
  });
  await Promise.all(finished);
}

/**
 * Scheduler: N and 10 × N steps with random resource accesses. Each step's blockers are found
 * through an index of resource keys (the path and each directory containing it) and sorted
 * step numbers, so a step costs O(accesses × depth × log N): ten times the steps must cost at
 * most eleven times the time.
 */
export async function schedulerSuite(sizes: SchedulerSizes): Promise<SuiteResult> {
  const [few, many] = sizes.steps;
  const workloads = { [few]: makeDeclarations(few, 7), [many]: makeDeclarations(many, 7) };
  const times = await medianTimes(
    {
      [`${few} steps`]: () => schedule(workloads[few]!, sizes.maxParallel),
      [`${many} steps`]: () => schedule(workloads[many]!, sizes.maxParallel),
      [`${few} steps, no scheduler`]: () => scaffold(workloads[few]!),
      [`${many} steps, no scheduler`]: () => scaffold(workloads[many]!),
    },
    sizes.iterations,
  );
  const small = times[`${few} steps`]!;
  const large = times[`${many} steps`]!;
  const smallFloor = times[`${few} steps, no scheduler`]!;
  const largeFloor = times[`${many} steps, no scheduler`]!;
  return {
    suite: 'scheduler',
    figures: [
      {
        suite: 'scheduler',
        name: `${many} ÷ ${few} steps of random resource accesses (10 × size)`,
        value: large / small,
        unit: '×',
        basis: `${formatNumber(large)} ms / ${formatNumber(small)} ms`,
        target: { limit: 11, text: '≤ 11' },
      },
      {
        suite: 'scheduler',
        name: `${many} ÷ ${few} steps without a scheduler: Node's own growth for that many pending steps`,
        value: largeFloor / smallFloor,
        unit: '×',
        basis: `${formatNumber(largeFloor)} ms / ${formatNumber(smallFloor)} ms`,
      },
      {
        suite: 'scheduler',
        name: `marginal cost per step (${few} → ${many})`,
        value: ((large - small) / (many - few)) * 1000,
        unit: 'µs',
        basis: `(${formatNumber(large)} − ${formatNumber(small)}) ms / ${many - few} steps`,
      },
    ],
    raw: { sizes, medianMs: times },
    notes: [],
  };
}
