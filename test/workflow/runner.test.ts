import { afterEach, describe, expect, it, vi } from 'vitest';
import { HeldApprover, startRun, useWorkspace } from './runner-harness.js';

const workspace = useWorkspace();

/** Let the run go as far as it can without the test (no timers are involved anywhere). */
const settle = async () => {
  for (let turn = 0; turn < 50; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

afterEach(() => {
  vi.useRealTimers();
});

describe('runner scheduling (fake tools, finished by hand)', () => {
  it('starts independent steps together up to max_parallel and reports results in model order', async () => {
    const run = startRun(
      `  - { id: a, tool: work, with: { name: a } }
  - { id: b, tool: work, with: { name: b } }
  - { id: c, tool: work, with: { name: c } }
  - { id: d, tool: work, with: { name: d } }
`,
      { workspace: workspace(), maxParallel: 3 },
    );
    await run.until(() => run.stage.running().length === 3, 'three steps to run');
    await settle();
    expect(run.stage.running()).toEqual(['a', 'b', 'c']);
    run.stage.finish('c');
    await run.until(() => run.stage.running().includes('d'), 'd to take the freed slot');
    run.stage.finish('d');
    run.stage.finish('b');
    await settle();
    expect(run.reported()).toEqual([]);
    run.stage.finish('a');
    const summary = await run.done;
    expect(summary.exitCode).toBe(0);
    expect(run.stage.log).toEqual(['start a', 'start b', 'start c', 'finish c', 'start d', 'finish d', 'finish b', 'finish a']);
    expect(run.reported()).toEqual(['a', 'b', 'c', 'd']);
    expect(run.stage.peak).toBe(3);
  });

  it('runs conflicting steps in model order, never together, while shared access overlaps', async () => {
    const run = startRun(
      `  - { id: read1, tool: work, with: { name: read1, shared: [cache] } }
  - { id: read2, tool: work, with: { name: read2, shared: [cache] } }
  - { id: write1, tool: work, with: { name: write1, exclusive: [cache] } }
  - { id: write2, tool: work, with: { name: write2, exclusive: [cache] } }
  - { id: other, tool: work, with: { name: other, exclusive: [elsewhere] } }
`,
      { workspace: workspace(), maxParallel: 8 },
    );
    await run.until(() => run.stage.running().length === 3, 'the two readers and the unrelated writer');
    await settle();
    expect(run.stage.running()).toEqual(['read1', 'read2', 'other']);
    run.stage.finish('read2');
    run.stage.finish('other');
    await settle();
    expect(run.stage.running()).toEqual(['read1']);
    run.stage.finish('read1');
    await run.until(() => run.stage.running().includes('write1'), 'the first writer');
    await settle();
    expect(run.stage.running()).toEqual(['write1']);
    run.stage.finish('write1');
    await run.until(() => run.stage.running().includes('write2'), 'the second writer');
    run.stage.finish('write2');
    await run.done;
    expect(run.stage.log.filter((line) => line.includes('write'))).toEqual(['start write1', 'finish write1', 'start write2', 'finish write2']);
    expect(run.reported()).toEqual(['read1', 'read2', 'write1', 'write2', 'other']);
  });

  it('treats an exclusive tool as a barrier: it waits for every earlier step, later steps wait for it', async () => {
    const run = startRun(
      `  - { id: before1, tool: work, with: { name: before1 } }
  - { id: before2, tool: work, with: { name: before2 } }
  - { id: barrier, tool: solo, with: { name: barrier } }
  - { id: after1, tool: work, with: { name: after1 } }
  - { id: after2, tool: work, with: { name: after2 } }
`,
      { workspace: workspace(), maxParallel: 4 },
    );
    await run.until(() => run.stage.running().length === 2, 'the steps before the barrier');
    run.stage.finish('before2');
    await settle();
    expect(run.stage.running()).toEqual(['before1']);
    run.stage.finish('before1');
    await run.until(() => run.stage.running().includes('barrier'), 'the barrier');
    await settle();
    expect(run.stage.running()).toEqual(['barrier']);
    run.stage.finish('barrier');
    await run.until(() => run.stage.running().length === 2, 'the steps after the barrier');
    run.stage.finish('after1');
    run.stage.finish('after2');
    await run.done;
    expect(run.stage.log).toEqual([
      'start before1',
      'start before2',
      'finish before2',
      'finish before1',
      'start barrier',
      'finish barrier',
      'start after1',
      'start after2',
      'finish after1',
      'finish after2',
    ]);
    // The events say the same: the barrier is reported starting only after every earlier step was reported finished.
    const reportedOrder = run.events.flatMap((event) =>
      event.type === 'step_started' ? [`started ${event.stepId}`] : event.type === 'step_finished' ? [`finished ${event.stepId}`] : [],
    );
    expect(reportedOrder).toEqual([
      'started before1',
      'started before2',
      'finished before1',
      'finished before2',
      'started barrier',
      'finished barrier',
      'started after1',
      'started after2',
      'finished after1',
      'finished after2',
    ]);
  });

  it('waits for needs and for steps it references, and for nothing else', async () => {
    const run = startRun(
      `  - { id: slow, tool: work, with: { name: slow } }
  - { id: quick, tool: work, with: { name: quick } }
  - { id: needy, needs: [quick], tool: work, with: { name: needy } }
  - { id: reader, tool: work, with: { name: "reader of \${{ steps.slow.output }}" } }
  - { id: free, tool: work, with: { name: free } }
`,
      { workspace: workspace(), maxParallel: 8 },
    );
    await run.until(() => run.stage.running().length === 2, 'slow and quick');
    await settle();
    // free is independent but comes after needy and reader, which are not prepared yet: steps start in model order.
    expect(run.stage.running()).toEqual(['slow', 'quick']);
    run.stage.finish('quick');
    await run.until(() => run.stage.running().includes('needy'), 'needy after quick');
    await settle();
    expect(run.stage.running()).toEqual(['slow', 'needy']);
    run.stage.finish('slow');
    await run.until(() => run.stage.running().length === 3, 'reader and free');
    expect(run.stage.running().sort()).toEqual(['free', 'needy', 'reader of slow']);
    for (const name of ['needy', 'reader of slow', 'free']) run.stage.finish(name);
    expect((await run.done).exitCode).toBe(0);
  });

  it('runs one step at a time by default (max_parallel 1)', async () => {
    const run = startRun(
      `  - { id: a, tool: work, with: { name: a } }
  - { id: b, tool: work, with: { name: b } }
  - { id: c, tool: work, with: { name: c } }
`,
      { workspace: workspace() },
    );
    for (const name of ['a', 'b', 'c']) {
      await run.until(() => run.stage.running().includes(name), name);
      await settle();
      expect(run.stage.running()).toEqual([name]);
      run.stage.finish(name);
    }
    await run.done;
    expect(run.stage.peak).toBe(1);
  });

  it('holds no slot while a step waits for approval: at -j 2 two other steps execute meanwhile', async () => {
    const approver = new HeldApprover();
    const run = startRun(
      `  - { id: long, tool: work, with: { name: long } }
  - { id: asks, tool: gated, with: { name: asks } }
  - { id: other, tool: work, with: { name: other } }
  - { id: second, needs: [other], tool: work, with: { name: second } }
`,
      { workspace: workspace(), maxParallel: 2, approver, ask: ['network_tool(gated)'] },
    );
    await run.until(() => approver.waiting.length === 1 && run.stage.running().includes('other'), 'the approval and the other step');
    expect(run.stage.running()).toEqual(['long', 'other']);
    run.stage.finish('other');
    await run.until(() => run.stage.running().includes('second'), 'a second step while the approval still waits');
    expect(approver.waiting.map((entry) => entry.request.stepId)).toEqual(['asks']);
    approver.answer('asks', 'allow_once');
    await settle();
    // Approved, but both slots are taken: it waits for one.
    expect(run.stage.running()).toEqual(['long', 'second']);
    run.stage.finish('second');
    await run.until(() => run.stage.running().includes('asks'), 'the approved step to take the freed slot');
    run.stage.finish('asks');
    run.stage.finish('long');
    expect((await run.done).exitCode).toBe(0);
    expect(run.stage.log.indexOf('start second')).toBeLessThan(run.stage.log.indexOf('start asks'));
    expect(run.stage.peak).toBe(2);
  });

  it('holds back a step that conflicts with one waiting for approval, in model order', async () => {
    const approver = new HeldApprover();
    const run = startRun(
      `  - { id: asks, tool: gated, with: { name: asks } }
  - { id: barrier, tool: solo, with: { name: barrier, auto: true } }
`,
      { workspace: workspace(), maxParallel: 4, approver, ask: ['network_tool(gated)'] },
    );
    await run.until(() => approver.waiting.length === 1, 'the approval');
    await settle();
    expect(run.stage.log).toEqual([]);
    approver.answer('asks', 'allow_once');
    await run.until(() => run.stage.running().includes('asks'), 'the approved step');
    await settle();
    expect(run.stage.log).toEqual(['start asks']);
    run.stage.finish('asks');
    await run.done;
    expect(run.stage.log).toEqual(['start asks', 'finish asks', 'start barrier', 'finish barrier']);
  });

  it('reports step_started live and each step’s duration from its start', async () => {
    // Only the clock durations are read from is fake: it moves when the test moves it.
    vi.useFakeTimers({ toFake: ['performance'] });
    const run = startRun(
      `  - { id: first, tool: work, with: { name: first, exclusive: [k] } }
  - { id: second, tool: work, with: { name: second, exclusive: [k], auto: true } }
`,
      { workspace: workspace(), maxParallel: 2 },
    );
    await run.until(() => run.stage.running().includes('first'), 'first');
    expect(run.events.filter((event) => event.type === 'step_started').map((event) => event.type === 'step_started' && event.stepId)).toEqual(['first']);
    vi.advanceTimersByTime(5000);
    run.stage.finish('first');
    const summary = await run.done;
    expect(summary.steps[0]!.durationMs).toBe(5000);
    // second waited for first the whole time, but its clock started when it did.
    expect(summary.steps[1]!.durationMs).toBe(0);
  });
});
