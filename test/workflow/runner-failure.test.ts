import { describe, expect, it } from 'vitest';
import { PlainRenderer } from '../../src/ui/render/plain.js';
import { HeldApprover, startRun, useWorkspace } from './runner-harness.js';

const workspace = useWorkspace();

const settle = async () => {
  for (let turn = 0; turn < 50; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

describe('failure semantics under parallelism', () => {
  it('lets running steps finish, skips steps that had not started, and names the first failure first', async () => {
    const run = startRun(
      `  - { id: a, tool: work, with: { name: a } }
  - { id: b, tool: work, with: { name: b } }
  - { id: c, tool: work, with: { name: c } }
  - { id: cleanup, if: "\${{ always() }}", tool: work, with: { name: cleanup, auto: true } }
`,
      { workspace: workspace(), maxParallel: 2 },
    );
    await run.until(() => run.stage.running().length === 2, 'a and b');
    run.stage.fail('b');
    await settle();
    // a keeps running; c was waiting for a slot and never starts.
    expect(run.stage.running()).toEqual(['a']);
    run.stage.finish('a');
    const summary = await run.done;
    expect(summary.exitCode).toBe(1);
    expect(summary.firstFailure).toBe('b');
    expect(run.stage.log).toEqual(['start a', 'start b', 'failed b', 'finish a', 'start cleanup', 'finish cleanup']);
    expect(summary.steps.map((step) => [step.id, step.status, step.reason])).toEqual([
      ['a', 'success', undefined],
      ['b', 'failure', undefined],
      ['c', 'skipped', 'b failed'],
      ['cleanup', 'success', undefined],
    ]);
    expect(run.reported()).toEqual(['a', 'b', 'c', 'cleanup']);

    const lines: string[] = [];
    const renderer = new PlainRenderer({ write: (text) => lines.push(...text.trimEnd().split('\n')) });
    for (const event of run.events) renderer.handle(event);
    const summaryAt = lines.findIndex((line) => line.startsWith('First failure:'));
    expect(lines.slice(summaryAt, summaryAt + 6)).toEqual([
      'First failure: b — b failed on purpose',
      'Summary:',
      expect.stringMatching(/^ {2}✔ +a +success/),
      expect.stringMatching(/^ {2}✖ +b +failure/),
      expect.stringMatching(/^ {2}↷ +c +skipped .*\(b failed\)$/),
      expect.stringMatching(/^ {2}✔ +cleanup +success/),
    ]);
  });

  it('names the step that failed first in time, even when an earlier step fails later', async () => {
    const run = startRun(
      `  - { id: early, tool: work, with: { name: early } }
  - { id: late, tool: work, with: { name: late } }
`,
      { workspace: workspace(), maxParallel: 2 },
    );
    await run.until(() => run.stage.running().length === 2, 'both steps');
    run.stage.fail('late');
    await settle();
    run.stage.fail('early');
    const summary = await run.done;
    expect(summary.firstFailure).toBe('late');
    expect(summary.steps.map((step) => step.status)).toEqual(['failure', 'failure']);
  });

  it('skips a step that waited on a conflict when another step fails', async () => {
    const run = startRun(
      `  - { id: w1, tool: work, with: { name: w1, exclusive: [k] } }
  - { id: w2, tool: work, with: { name: w2, exclusive: [k] } }
  - { id: boom, tool: work, with: { name: boom } }
`,
      { workspace: workspace(), maxParallel: 4 },
    );
    await run.until(() => run.stage.running().length === 2, 'w1 and boom');
    run.stage.fail('boom');
    await settle();
    run.stage.finish('w1');
    const summary = await run.done;
    expect(run.stage.log).toEqual(['start w1', 'start boom', 'failed boom', 'finish w1']);
    expect(summary.steps.map((step) => [step.id, step.status, step.reason])).toEqual([
      ['w1', 'success', undefined],
      ['w2', 'skipped', 'boom failed'],
      ['boom', 'failure', undefined],
    ]);
  });

  it('skips a step waiting for approval when another step fails, and withdraws the question', async () => {
    const approver = new HeldApprover();
    const run = startRun(
      `  - { id: asks, tool: gated, with: { name: asks } }
  - { id: boom, tool: work, with: { name: boom } }
`,
      { workspace: workspace(), maxParallel: 2, approver, ask: ['network_tool(gated)'] },
    );
    await run.until(() => approver.waiting.length === 1 && run.stage.running().includes('boom'), 'the approval and boom');
    run.stage.fail('boom');
    const summary = await run.done;
    expect(summary.steps.map((step) => [step.id, step.status, step.reason])).toEqual([
      ['asks', 'skipped', 'boom failed'],
      ['boom', 'failure', undefined],
    ]);
    expect(run.stage.log).toEqual(['start boom', 'failed boom']);
  });

  it('keeps going after a failure with continue_on_error', async () => {
    const run = startRun(
      `  - { id: flaky, continue_on_error: true, tool: work, with: { name: flaky } }
  - { id: other, tool: work, with: { name: other } }
  - { id: later, tool: work, with: { name: later, auto: true } }
`,
      { workspace: workspace(), maxParallel: 2 },
    );
    await run.until(() => run.stage.running().length === 2, 'flaky and other');
    run.stage.fail('flaky');
    await run.until(() => run.stage.log.includes('finish later'), 'later to run in the freed slot');
    run.stage.finish('other');
    const summary = await run.done;
    expect(summary.exitCode).toBe(0);
    expect(summary.firstFailure).toBeUndefined();
    expect(summary.steps.map((step) => step.status)).toEqual(['failure', 'success', 'success']);
  });

  it('cancels steps that had not started when the run is interrupted', async () => {
    const controller = new AbortController();
    const run = startRun(
      `  - { id: running, tool: work, with: { name: running } }
  - { id: waiting, tool: work, with: { name: waiting } }
`,
      { workspace: workspace(), maxParallel: 1, signal: controller.signal },
    );
    await run.until(() => run.stage.running().includes('running'), 'the first step');
    controller.abort('interrupt');
    const summary = await run.done;
    expect(summary.exitCode).toBe(130);
    expect(summary.steps.map((step) => [step.status, step.reason])).toEqual([
      ['interrupted', undefined],
      ['cancelled', 'the run was interrupted'],
    ]);
  });
});
