import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { markdownTable, verdict, type SuiteResult } from '../../bench/lib/figures.js';
import { writeLibraryFloor } from '../../bench/lib/library-floor.js';
import { marginal, median } from '../../bench/lib/stats.js';
import { stepGarbage } from '../../bench/lib/step-garbage.js';
import { writeExecaSpawnLoop, writeNodeSpawnLoop } from '../../bench/lib/workflows.js';
import { policySuite } from '../../bench/suites/policy.js';
import { processLayersSuite } from '../../bench/suites/process-layers.js';
import { schedulerSuite } from '../../bench/suites/scheduler.js';
import { stepPathSuite } from '../../bench/suites/step-path.js';

// The in-process benchmarks at tiny sizes, so they cannot rot; `npm run bench` runs them for real.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rho-bench-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function expectUsable(result: SuiteResult, targets: number): void {
  expect(result.figures.length).toBeGreaterThan(0);
  for (const figure of result.figures) expect(Number.isFinite(figure.value), `${figure.name} = ${figure.value}`).toBe(true);
  expect(result.figures.filter((figure) => figure.target)).toHaveLength(targets);
  const table = markdownTable([result], { enforce: false });
  for (const figure of result.figures) expect(table).toContain(figure.name);
}

describe('bench quick mode', () => {
  it('computes medians and marginal costs', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(marginal({ size: 1, time: 12 }, { size: 201, time: 512 })).toBe(2.5);
  });

  it('policy: evaluates every request against both rule sets', async () => {
    const result = await policySuite({ requests: 100, rules: [5, 50], iterations: 1 });
    expectUsable(result, 1);
    const decisions = result.raw['decisions'] as Record<string, number>;
    // Every call of a task decides all 100 requests, whatever tinybench's count of warm-up calls.
    const total = decisions['allow']! + decisions['ask']! + decisions['deny']!;
    expect(total).toBeGreaterThanOrEqual(100 * 2);
    expect(total % 100).toBe(0);
    expect(decisions['allow']).toBeGreaterThan(0);
    expect(decisions['deny']).toBeGreaterThan(0);
  });

  it('scheduler: schedules random declarations to completion', async () => {
    const result = await schedulerSuite({ steps: [50, 500], maxParallel: 4, iterations: 1 });
    expectUsable(result, 1);
  });

  it('step path: runs echo workflows through the CLI path', async () => {
    const result = await stepPathSuite({ dir }, { steps: [1, 5, 50], iterations: 1, measureRss: false });
    expectUsable(result, 2);
    // The figures with a target get a verdict; the other view is shown for comparison only.
    expect(result.figures.filter((figure) => figure.target).map(verdict)).toEqual(expect.arrayContaining([expect.stringMatching(/^(met|missed)$/)]));
  });

  it('process layers: runs true through each layer of the process path', async () => {
    const result = await processLayersSuite({ processes: 2, rounds: 1 });
    expectUsable(result, 0);
    expect(result.figures.map((figure) => figure.name)).toEqual(expect.arrayContaining([expect.stringContaining('exec call through a ToolHost')]));
  });

  it('step gaps: counts what a loop allocates and the promises it creates per child, execa adding both', async () => {
    const bare = await stepGarbage([await writeNodeSpawnLoop(dir, 'garbage', 25, 'true')], { cwd: dir, scratch: dir });
    const execa = await stepGarbage([await writeExecaSpawnLoop(dir, 'garbage', 25, 'true')], { cwd: dir, scratch: dir });
    expect(bare).toMatchObject({ spawns: 25, promises: expect.closeTo(2, 0) });
    expect(execa.spawns).toBe(25);
    expect(execa.promises!).toBeGreaterThan(bare.promises! + 10);
    expect(bare.allocatedKB!).toBeGreaterThan(0);
    expect(execa.allocatedKB!).toBeGreaterThan(bare.allocatedKB!);
  });

  it('start-up: the libraries-only floor bundles and runs, through the compile cache as rho does', async () => {
    const script = await writeLibraryFloor(dir);
    for (let run = 0; run < 2; run++) expect(() => execFileSync(process.execPath, [script], { stdio: 'pipe' })).not.toThrow();
    expect(await readdir(path.join(dir, 'compile-cache'))).toHaveLength(1);
  });
});
