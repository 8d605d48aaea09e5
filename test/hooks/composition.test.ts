import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sampleProcessRequest } from '../../src/host/hooks/testing.js';
import { counted, fixture, hostWith, inlineHooks, recordingApprover, executionsOf, requestingTool } from './harness.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'rho-hooks-composition-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** One row of the composition table: a policy for `process`, a gate program, what happens. */
async function runRow(policy: 'allow' | 'ask' | 'deny', gateScript: 'continue.mjs' | 'deny.mjs') {
  const hooks = await inlineHooks({ pre_tool_use: [{ name: 'guard', command: fixture(gateScript, 'not on this machine') }] });
  const gate = counted(hooks.gates[0]!);
  const approver = recordingApprover();
  const tool = requestingTool('fake_exec', () => [sampleProcessRequest({ cwd: root })]);
  const host = await hostWith({ root, tools: [tool], policy: { [policy]: ['process'] }, gates: [gate], approver });
  const result = await host.invoke({ id: 'call-1', tool: 'fake_exec', args: {} });
  return { result, gateCalls: gate.calls, approvals: approver.asked, executions: executionsOf(tool), audit: host.auditSnapshot() };
}

describe('gates compose with the policy and can only tighten it', () => {
  it('policy deny: the gate is not called and the policy denies', async () => {
    const row = await runRow('deny', 'continue.mjs');
    expect(row.gateCalls).toBe(0);
    expect(row.result.status).toBe('denied');
    expect(row.result.error?.kind).toBe('policy_denied');
    expect(row.executions).toBe(0);
    expect(row.audit.map((entry) => entry.decider)).toEqual(['policy']);
  });

  it('approval required + continue: approval is still required', async () => {
    const row = await runRow('ask', 'continue.mjs');
    expect(row.gateCalls).toBe(1);
    expect(row.approvals).toBe(1);
    expect(row.result.status).toBe('success');
    expect(row.executions).toBe(1);
    expect(row.audit.map((entry) => entry.decider)).toEqual(['user']);
  });

  it('approval required + deny: denied before anyone is asked', async () => {
    const row = await runRow('ask', 'deny.mjs');
    expect(row.gateCalls).toBe(1);
    expect(row.approvals).toBe(0);
    expect(row.result.status).toBe('denied');
    expect(row.result.error?.kind).toBe('hook_denied');
    expect(row.result.error?.message).toMatch(/guard: not on this machine/);
    expect(row.executions).toBe(0);
  });

  it('allow + continue: the call executes', async () => {
    const row = await runRow('allow', 'continue.mjs');
    expect(row.gateCalls).toBe(1);
    expect(row.approvals).toBe(0);
    expect(row.result.status).toBe('success');
    expect(row.executions).toBe(1);
  });

  it('allow + deny: the call is denied and never executes', async () => {
    const row = await runRow('allow', 'deny.mjs');
    expect(row.result.status).toBe('denied');
    expect(row.result.error?.kind).toBe('hook_denied');
    expect(row.executions).toBe(0);
    expect(row.audit.map((entry) => entry.decider)).toEqual(['hook']);
  });
});
