import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/host/registry.js';
import { interruptReason } from '../../src/host/tool-host.js';
import { formatProblem } from '../../src/workflow/problems.js';
import { timeoutReason } from '../../src/workflow/runner.js';
import { compileForTest, fakeTools, finishedEvent, Stage, startRun, useWorkspace } from './runner-harness.js';

const workspace = useWorkspace();

const settle = async () => {
  for (let turn = 0; turn < 50; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

/** Whether a promise has settled, without waiting for it. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await settle();
  return settled;
}

describe('async (detached) steps', () => {
  it('do not hold back later steps or their results, and the run waits for them before finishing', async () => {
    // At -j 1 the detached step runs beside the steps in model order: it takes no slot of theirs.
    const run = startRun(
      `  - { id: tail, tool: watch, async: true, with: { name: tail, shared: [log] } }
  - { id: build, tool: work, with: { name: build } }
  - { id: test, tool: work, with: { name: test } }
`,
      { workspace: workspace(), maxParallel: 1 },
    );
    await run.until(() => run.stage.running().length === 2, 'tail and build');
    run.stage.finish('build');
    await run.until(() => run.stage.running().includes('test'), 'test in the slot build freed');
    run.stage.finish('test');
    await run.until(() => run.reported().length === 2, 'the results of build and test');
    expect(run.reported()).toEqual(['build', 'test']);
    expect(run.stage.running()).toEqual(['tail']);
    expect(await isSettled(run.done)).toBe(false);
    expect(run.events.some((event) => event.type === 'run_finished')).toBe(false);
    run.stage.finish('tail');
    const summary = await run.done;
    expect(summary.exitCode).toBe(0);
    expect(run.reported()).toEqual(['build', 'test', 'tail']);
    expect(run.events.at(-1)?.type).toBe('run_finished');
    expect(summary.steps.map((step) => step.status)).toEqual(['success', 'success', 'success']);
  });

  it('take slots of their own: at -j 1 a second detached step waits for the first, the steps in model order do not', async () => {
    const run = startRun(
      `  - { id: t1, tool: watch, async: true, with: { name: t1 } }
  - { id: t2, tool: watch, async: true, with: { name: t2 } }
  - { id: build, tool: work, with: { name: build } }
`,
      { workspace: workspace(), maxParallel: 1 },
    );
    await run.until(() => run.stage.running().includes('build'), 'build beside t1');
    expect(run.stage.running()).toEqual(['t1', 'build']);
    run.stage.finish('t1');
    await run.until(() => run.stage.running().includes('t2'), 't2 in the detached slot t1 freed');
    run.stage.finish('build');
    run.stage.finish('t2');
    expect((await run.done).exitCode).toBe(0);
    expect(run.stage.peak).toBe(2);
  });

  it('keep a step that references them waiting until they complete', async () => {
    const run = startRun(
      `  - { id: tail, tool: watch, async: true, with: { name: tail } }
  - { id: use, tool: work, with: { name: "after \${{ steps.tail.output }}" } }
`,
      { workspace: workspace(), maxParallel: 4 },
    );
    await run.until(() => run.stage.running().includes('tail'), 'tail');
    await settle();
    expect(run.stage.running()).toEqual(['tail']);
    run.stage.finish('tail');
    await run.until(() => run.stage.running().includes('after tail'), 'the dependent step');
    run.stage.finish('after tail');
    expect((await run.done).exitCode).toBe(0);
  });

  it('report their results in completion order once the steps before them are reported', async () => {
    const run = startRun(
      `  - { id: first, tool: work, with: { name: first } }
  - { id: t1, tool: watch, async: true, with: { name: t1 } }
  - { id: t2, tool: watch, async: true, with: { name: t2 } }
  - { id: last, tool: work, with: { name: last } }
`,
      { workspace: workspace(), maxParallel: 4 },
    );
    await run.until(() => run.stage.running().length === 4, 'every step');
    run.stage.finish('t2');
    run.stage.finish('last');
    await settle();
    expect(run.reported()).toEqual([]);
    run.stage.finish('first');
    await run.until(() => run.reported().length === 3, 'first, then t2 and last');
    expect(run.reported()).toEqual(['first', 't2', 'last']);
    run.stage.finish('t1');
    await run.done;
    expect(run.reported()).toEqual(['first', 't2', 'last', 't1']);
  });

  it('are interrupted and recorded as interrupted when another step fails', async () => {
    const run = startRun(
      `  - { id: tail, tool: watch, async: true, with: { name: tail, shared: [log] } }
  - { id: build, tool: work, with: { name: build } }
  - { id: after, tool: work, with: { name: after } }
`,
      { workspace: workspace(), maxParallel: 1 },
    );
    await run.until(() => run.stage.running().length === 2, 'tail and build');
    run.stage.fail('build');
    const summary = await run.done;
    expect(summary.exitCode).toBe(1);
    expect(summary.firstFailure).toBe('build');
    expect(run.stage.log).toEqual(['start tail', 'start build', 'failed build', 'stopped tail']);
    expect(summary.steps.map((step) => [step.id, step.status, step.reason])).toEqual([
      ['tail', 'interrupted', 'build failed while it ran detached'],
      ['build', 'failure', undefined],
      ['after', 'skipped', 'build failed'],
    ]);
    expect(finishedEvent(run.events, 'tail').status).toBe('interrupted');
  });

  it('are interrupted on an interrupt or a timeout of the run (exit 130, 124)', async () => {
    for (const [reason, exitCode, said] of [
      [interruptReason, 130, 'the run was interrupted while it ran detached'],
      [timeoutReason, 124, 'the run timed out while it ran detached'],
    ] as const) {
      const controller = new AbortController();
      const run = startRun(
        `  - { id: tail, tool: watch, async: true, with: { name: tail } }
  - { id: work, tool: work, with: { name: work } }
`,
        { workspace: workspace(), maxParallel: 2, signal: controller.signal },
      );
      await run.until(() => run.stage.running().length === 2, 'both steps');
      controller.abort(reason);
      const summary = await run.done;
      expect(summary.exitCode).toBe(exitCode);
      expect(summary.steps[0]).toMatchObject({ status: 'interrupted', reason: said });
    }
  });

  it('on a tool that does not declare async mode is a validation error', () => {
    const { workflow, problems } = compileForTest(
      `version: 1
name: test
steps:
  - { id: bad, tool: work, async: true, with: { name: bad } }
`,
      new ToolRegistry(fakeTools(new Stage())),
    );
    expect(workflow).toBeUndefined();
    expect(problems.map(formatProblem)).toEqual(['w.yml:4:35: tool work cannot run detached (it does not declare async mode)']);
  });

  it('with exclusive access fail with a clear error, and the run goes on per failure semantics', async () => {
    const run = startRun(
      `  - { id: bad, tool: watch, async: true, with: { name: bad, exclusive: [db] } }
  - { id: next, tool: work, with: { name: next, auto: true } }
`,
      { workspace: workspace(), maxParallel: 2 },
    );
    const summary = await run.done;
    expect(run.stage.log).toEqual([]);
    expect(summary.exitCode).toBe(1);
    expect(summary.steps[0]).toMatchObject({ status: 'failure', error: { kind: 'unsupported' } });
    expect(summary.steps[0]!.error!.message).toBe(
      'step bad cannot run detached: it takes exclusive access to its opaque key; a detached call may take shared access only; remove `async: true` from the step',
    );
    expect(summary.steps[1]).toMatchObject({ status: 'skipped', reason: 'bad failed' });

    const tolerant = startRun(
      `  - { id: bad, tool: watch, async: true, continue_on_error: true, with: { name: bad }, resources: { exclusive: ["db:main"] } }
  - { id: next, tool: work, with: { name: next, auto: true } }
`,
      { workspace: workspace(), maxParallel: 2 },
    );
    const tolerated = await tolerant.done;
    expect(tolerated.exitCode).toBe(0);
    expect(tolerated.steps.map((step) => step.status)).toEqual(['failure', 'success']);
    expect(tolerant.stage.log).toEqual(['start next', 'finish next']);
  });
});
