import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sampleGateInput } from '../../src/host/hooks/testing.js';
import { fixture, inlineHooks } from './harness.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rho-hooks-gates-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function answerOf(entry: Record<string, unknown>) {
  const warnings: string[] = [];
  const hooks = await inlineHooks({ pre_tool_use: [{ name: 'gate', ...entry }] }, { onWarning: (message) => warnings.push(message) });
  const answer = await hooks.gates[0]!.evaluate(sampleGateInput(), new AbortController().signal);
  return { answer, warnings, summary: hooks.summary() };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a gate program fails closed', () => {
  it.each([
    ['exits 1', fixture('exit-with.mjs', '1'), /exited with code 1 \(stderr: exiting with 1\)/],
    ['exits 2', fixture('exit-with.mjs', '2'), /exited with code 2/],
    ['is killed', fixture('kill-self.mjs'), /was killed by SIGKILL/],
    ['prints nothing', fixture('print.mjs', ''), /printed nothing/],
    ['prints {}', fixture('print.mjs', '{}'), /not \{"decision": "continue"\}/],
    ['prints an unknown decision', fixture('print.mjs', '{"decision":"allow"}'), /not \{"decision": "continue"\}/],
    ['adds an unknown field', fixture('print.mjs', '{"decision":"continue","also":"allow"}'), /not \{"decision": "continue"\}/],
    ['prints malformed JSON', fixture('print.mjs', '{"decision":'), /not JSON/],
    ['is missing', ['./no-such-hook'], /could not start .*no-such-hook/],
  ])('denies when the hook %s', async (_, command, problem) => {
    const { answer, summary } = await answerOf({ command });
    expect(answer.decision).toBe('deny');
    expect(answer.decision === 'deny' && answer.reason).toMatch(problem);
    expect(answer.decision === 'deny' && answer.reason).toMatch(/on_error = "continue"/);
    expect(summary.hooks).toMatchObject([{ name: 'gate', role: 'gate', runs: 1, failures: 1 }]);
  });

  it('denies when the hook times out, and kills it', async () => {
    const pidFile = path.join(dir, 'pid');
    const { answer } = await answerOf({ command: fixture('forever.mjs', pidFile), timeout_ms: 1000 });
    expect(answer).toEqual({ decision: 'deny', reason: expect.stringMatching(/did not finish within 1000 ms/) });
    const pid = Number(await readFile(pidFile, 'utf8'));
    for (let tries = 0; tries < 50 && isAlive(pid); tries++) await sleep(20);
    expect(isAlive(pid)).toBe(false);
  });

  it('passes a deny answer and its reason through, and fills in a missing reason', async () => {
    expect((await answerOf({ command: fixture('deny.mjs', 'rm -rf is blocked') })).answer).toEqual({ decision: 'deny', reason: 'rm -rf is blocked' });
    expect((await answerOf({ command: fixture('print.mjs', '{"decision":"deny"}') })).answer).toEqual({
      decision: 'deny',
      reason: 'no reason given',
    });
  });
});

describe('on_error = "continue"', () => {
  it.each([
    ['exits 1', fixture('exit-with.mjs', '1')],
    ['is missing', ['./no-such-hook']],
    ['prints malformed JSON', fixture('print.mjs', 'yes')],
  ])('lets the call go on when the hook %s, with a warning', async (_, command) => {
    const { answer, warnings, summary } = await answerOf({ command, on_error: 'continue' });
    expect(answer).toEqual({ decision: 'continue' });
    expect(warnings).toEqual([expect.stringMatching(/^gate gate failed and is advisory/)]);
    expect(summary.warnings).toEqual(warnings);
  });

  it('still honours an explicit deny', async () => {
    const { answer } = await answerOf({ command: fixture('deny.mjs', 'no'), on_error: 'continue' });
    expect(answer).toEqual({ decision: 'deny', reason: 'no' });
  });
});

describe('the tools filter', () => {
  it('sends only calls of the listed tools to the gate', async () => {
    const hooks = await inlineHooks({ pre_tool_use: [{ name: 'exec-only', command: fixture('deny.mjs'), tools: ['shell'] }] });
    const signal = new AbortController().signal;
    expect(await hooks.gates[0]!.evaluate(sampleGateInput({ tool: 'exec' }), signal)).toEqual({ decision: 'continue' });
    expect((await hooks.gates[0]!.evaluate(sampleGateInput({ tool: 'shell' }), signal)).decision).toBe('deny');
    expect(hooks.summary().hooks).toMatchObject([{ name: 'exec-only', runs: 1 }]);
  });
});
