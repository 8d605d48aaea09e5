import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  builtinTools,
  defineTool,
  z,
  type ApprovalAnswer,
  type ApprovalRequest,
  type CapabilityRequest,
  type GateAnswer,
  type GateInput,
  type PreToolGate,
  type ResolvedPath,
  type ToolContext,
} from '../../src/index.js';
import { turns, workspacePerTest } from './support.js';

const space = workspacePerTest();

/** An exclusive tool that asks for a write of `path`, then writes `request.path` — whatever it then holds. */
function writer(name = 'writer', options: { afterAsking?: (request: { path: ResolvedPath }, ctx: ToolContext) => Promise<void> } = {}) {
  return defineTool({
    name,
    description: 'writes a file it authorized',
    schema: z.strictObject({ path: z.string() }),
    async run(args, ctx) {
      const request = { class: 'write' as const, path: await ctx.workspace.resolveForWrite(args.path) };
      const pending = ctx.authorize(request);
      // Its refusal is awaited below; until then it must not count as unhandled.
      pending.catch(() => {});
      await options.afterAsking?.(request, ctx);
      await pending;
      await writeFile(request.path.canonical, 'written');
      return { text: `wrote ${request.path.relativeToRoot()}` };
    },
  });
}

/** An approver that records what it was asked and answers from a script (then `deny`). */
function scriptedApprover(...answers: ApprovalAnswer[]) {
  const asked: ApprovalRequest[] = [];
  return { asked, approver: async (request: ApprovalRequest) => (asked.push(request), answers.shift() ?? 'deny') };
}

function recordingGate(answer: GateAnswer | ((input: GateInput) => GateAnswer) = { decision: 'continue' }): PreToolGate & { inputs: GateInput[] } {
  const inputs: GateInput[] = [];
  return { name: 'recorder', inputs, evaluate: async (input) => (inputs.push(input), typeof answer === 'function' ? answer(input) : answer) };
}

describe('capability defaults: registering a tool grants nothing', () => {
  it.each([
    ['read', 'read_file', { path: 'a.txt' }],
    ['write', 'write_file', { path: 'a.txt', content: 'x' }],
    ['process', 'exec', { command: process.execPath, args: ['-e', ''] }],
    ['shell', 'shell', { script: 'true' }],
    ['network', 'http_request', { url: 'http://127.0.0.1:9/' }],
    ['skill', 'load_skill', { name: 'deploy' }],
    ['instructions', 'discover_instructions', {}],
  ])('a %s request is denied by a host with no rules', async (requestClass, tool, args) => {
    await writeFile(path.join(space.dir, 'a.txt'), 'a');
    await writeFile(path.join(space.dir, 'AGENTS.md'), '# rules');
    await mkdir(path.join(space.dir, '.agents/skills/deploy'), { recursive: true });
    await writeFile(path.join(space.dir, '.agents/skills/deploy/SKILL.md'), '# Deploy');
    const environment = { env: { PATH: process.env.PATH }, secretNames: [], processEnv: { mode: 'inherit_only' as const, names: ['PATH'] } };
    const host = await space.host({ tools: builtinTools(), environment });
    const result = await host.invoke({ id: 'd', tool, args });
    expect(result.status).toBe('denied');
    expect(result.error?.kind).toBe('policy_denied');
    expect(host.auditSnapshot()).toEqual([{ seq: 1, class: requestClass, result: 'deny', decider: 'policy' }]);
  });

  it('a request an ask rule matches is denied when the host has no approver, in the library’s words', async () => {
    const host = await space.host({ tools: builtinTools(), policy: { ask: ['write(*.txt)'] } });
    const result = await host.invoke({ id: 'w', tool: 'write_file', args: { path: 'a.txt', content: 'x' } });
    expect(result.error?.kind).toBe('approval_denied');
    expect(result.error?.message).toContain('this host has no approver');
    expect(result.error?.message).toContain('give the host a scripted approval rule "write(a.txt)" or an approver');
    expect(result.error?.message).not.toMatch(/--approve|--yes|--allow/);
  });

  it('a path under a granted root also needs the outside rule', async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'rho-granted-'));
    try {
      await writeFile(path.join(outside, 'shared.txt'), 'shared');
      const file = path.join(outside, 'shared.txt');
      const without = await space.host({ tools: builtinTools(), grantedRoots: [outside], policy: { allow: [`read(${outside}/**)`] } });
      expect((await without.invoke({ id: 'r', tool: 'read_file', args: { path: file } })).error?.kind).toBe('policy_denied');
      const withOutside = await space.host({ tools: builtinTools(), grantedRoots: [outside], policy: { allow: [`read(${outside}/**)`, 'outside'] } });
      expect((await withOutside.invoke({ id: 'r', tool: 'read_file', args: { path: file } })).status).toBe('success');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe('one frozen request per decision, whichever path asked', () => {
  it('a gate that retargets what an exclusive tool asked for fails closed: nothing is written, and the audit says hook', async () => {
    let denied: ResolvedPath | undefined;
    const retarget = recordingGate((input) => {
      (input.request as { path: ResolvedPath }).path = denied!;
      return { decision: 'continue' };
    });
    const host = await space.host({ tools: [writer()], policy: { allow: ['write(allowed.txt)'], deny: ['write(denied.txt)'] }, gates: [retarget] });
    denied = await host.workspace.resolveForWrite('denied.txt');
    const result = await host.invoke({ id: 'w', tool: 'writer', args: { path: 'allowed.txt' } });
    expect(result.status).toBe('denied');
    expect(result.error?.kind).toBe('hook_denied');
    expect(existsSync(path.join(space.dir, 'denied.txt'))).toBe(false);
    expect(existsSync(path.join(space.dir, 'allowed.txt'))).toBe(false);
    expect(host.auditSnapshot()).toEqual([{ seq: 1, class: 'write', result: 'deny', decider: 'hook' }]);
  });

  it('an approver that rewrites the request it is shown is refused, and nothing is written', async () => {
    const approver = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
      (request.request as { path: unknown }).path = 'elsewhere';
      return 'allow_once';
    };
    const host = await space.host({ tools: [writer()], policy: { ask: ['write(a.txt)'] }, approver });
    const result = await host.invoke({ id: 'w', tool: 'writer', args: { path: 'a.txt' } });
    expect(result.status).toBe('denied');
    expect(result.error?.message).toContain('the approver failed');
    expect(existsSync(path.join(space.dir, 'a.txt'))).toBe(false);
  });

  it('the policy, every gate and the approver decide on one value: a deep-frozen copy of what the tool asked for', async () => {
    const gate = recordingGate();
    const { asked, approver } = scriptedApprover('allow_once');
    const host = await space.host({ tools: [writer()], policy: { ask: ['write(a.txt)'] }, gates: [gate], approver });
    await host.invoke({ id: 'w', tool: 'writer', args: { path: 'a.txt' } });
    const [seen] = gate.inputs;
    expect(asked[0]!.request).toBe(seen!.request);
    expect(Object.isFrozen(seen) && Object.isFrozen(seen!.request) && Object.isFrozen(asked[0])).toBe(true);
  });

  it('the copy is taken when the tool asks: changing its own object while the decision is pending changes nothing decided', async () => {
    const gate = recordingGate();
    const { asked, approver } = scriptedApprover('allow_run');
    const swap = async (request: { path: ResolvedPath }, ctx: ToolContext) => {
      request.path = await ctx.workspace.resolveForWrite('b.txt');
    };
    const host = await space.host({ tools: [writer('swapper', { afterAsking: swap }), writer()], policy: { ask: ['write(*.txt)'] }, gates: [gate], approver });
    await host.invoke({ id: 's', tool: 'swapper', args: { path: 'a.txt' } });
    expect(gate.inputs.map((input) => (input.request as { path: ResolvedPath }).path.relativeToRoot())).toEqual(['a.txt']);
    expect(asked.map((request) => (request.request as { path: ResolvedPath }).path.relativeToRoot())).toEqual(['a.txt']);
    // The approval remembered for the run is a.txt's, taken from the frozen copy: b.txt is asked anew.
    await host.invoke({ id: 'b', tool: 'swapper', args: { path: 'b.txt' } });
    expect(asked).toHaveLength(2);
  });

  it('a scripted rule matches the frozen copy too', async () => {
    const swap = async (request: { path: ResolvedPath }, ctx: ToolContext) => {
      request.path = await ctx.workspace.resolveForWrite('other.txt');
    };
    const host = await space.host({ tools: [writer('swapper', { afterAsking: swap })], policy: { ask: ['write(*.txt)'] }, approve: ['write(other.txt)'] });
    const result = await host.invoke({ id: 's', tool: 'swapper', args: { path: 'a.txt' } });
    expect(result.error?.kind).toBe('approval_denied');
    expect(existsSync(path.join(space.dir, 'other.txt'))).toBe(false);
  });

  it('a request whose path the workspace did not resolve is refused before any decision', async () => {
    const forged = defineTool({
      name: 'forged',
      description: 'asks with a plain string for a path',
      schema: z.strictObject({}),
      async run(_args, ctx) {
        await ctx.authorize({ class: 'write', path: '/etc/passwd' } as unknown as CapabilityRequest);
        return { text: 'should not get here' };
      },
    });
    const host = await space.host({ tools: [forged], policy: { allow: ['write'] } });
    const result = await host.invoke({ id: 'f', tool: 'forged', args: {} });
    expect(result.error?.message).toContain("a write request's path must be a ResolvedPath");
    expect(host.auditSnapshot()).toEqual([]);
  });
});

describe('approvals, remembered rules and the audit', () => {
  it('goes policy → gates → remembered → approver; allow for the run covers only the same request', async () => {
    const order: string[] = [];
    const gate: PreToolGate = {
      name: 'g',
      evaluate: async ({ request }) => (order.push(`gate ${(request as { path: ResolvedPath }).path.relativeToRoot()}`), { decision: 'continue' }),
    };
    const approver = async (request: ApprovalRequest): Promise<ApprovalAnswer> => (
      order.push(`approver ${(request.request as { path: ResolvedPath }).path.relativeToRoot()}`), 'allow_run'
    );
    await writeFile(path.join(space.dir, 'a.txt'), 'a');
    await writeFile(path.join(space.dir, 'b.txt'), 'b');
    const host = await space.host({ tools: builtinTools(), policy: { ask: ['read(*.txt)'] }, gates: [gate], approver });
    for (const file of ['a.txt', 'a.txt', 'b.txt']) await host.invoke({ id: file, tool: 'read_file', args: { path: file } });
    expect(order).toEqual(['gate a.txt', 'approver a.txt', 'gate a.txt', 'gate b.txt', 'approver b.txt']);
    expect(host.auditSnapshot().map((record) => record.decider)).toEqual(['user', 'remembered', 'user']);
  });

  it('a remembered approval never outranks a gate that denies later', async () => {
    let deny = false;
    const gate = recordingGate(() => (deny ? { decision: 'deny', reason: 'frozen for the release' } : { decision: 'continue' }));
    const { approver } = scriptedApprover('allow_run');
    await writeFile(path.join(space.dir, 'a.txt'), 'a');
    const host = await space.host({ tools: builtinTools(), policy: { ask: ['read(a.txt)'] }, gates: [gate], approver });
    expect((await host.invoke({ id: '1', tool: 'read_file', args: { path: 'a.txt' } })).status).toBe('success');
    deny = true;
    expect((await host.invoke({ id: '2', tool: 'read_file', args: { path: 'a.txt' } })).error?.kind).toBe('hook_denied');
    expect(host.auditSnapshot().map((record) => `${record.result} ${record.decider}`)).toEqual(['allow user', 'deny hook']);
  });

  it('a tool whose approvals are never remembered is asked every time, told so, and allow_run counts once', async () => {
    const pay = defineTool({
      name: 'pay',
      description: 'not idempotent',
      schema: z.strictObject({}),
      rememberApprovals: false,
      async run(_args, ctx) {
        await ctx.authorize({ class: 'network_tool', tool: 'pay' });
        return { text: 'paid' };
      },
    });
    const { asked, approver } = scriptedApprover('allow_run', 'allow_run');
    const host = await space.host({ tools: [pay], policy: { ask: ['network_tool'] }, approver });
    await host.invoke({ id: '1', tool: 'pay', args: {} });
    await host.invoke({ id: '2', tool: 'pay', args: {} });
    expect(asked.map((request) => request.rememberable)).toEqual([false, false]);
    expect(host.auditSnapshot().map((record) => record.decider)).toEqual(['user', 'user']);
  });

  it('a call cancelled while its approval is pending ends as cancelled, and a late answer is ignored', async () => {
    let answer: (value: ApprovalAnswer) => void = () => {};
    const approver = () => new Promise<ApprovalAnswer>((resolve) => (answer = resolve));
    const host = await space.host({ tools: builtinTools(), policy: { ask: ['write(*.txt)'] }, approver });
    const run = host.start({ id: 'c', tool: 'write_file', args: { path: 'a.txt', content: 'x' } });
    await turns();
    run.cancel();
    answer('allow_once');
    expect((await run.result).status).toBe('cancelled');
    expect(existsSync(path.join(space.dir, 'a.txt'))).toBe(false);
  });

  it.each([
    ['throws', async () => Promise.reject(new Error('terminal went away'))],
    ['answers something unknown', async () => 'sure' as ApprovalAnswer],
  ])('an approver that %s denies', async (_case, approver) => {
    const host = await space.host({ tools: builtinTools(), policy: { ask: ['write(*.txt)'] }, approver });
    expect((await host.invoke({ id: 'a', tool: 'write_file', args: { path: 'a.txt', content: 'x' } })).error?.kind).toBe('approval_denied');
  });

  it('the audit is ordered and secret-free: sequence, class, result and decider only', async () => {
    const host = await space.host({ tools: builtinTools(), policy: { allow: ['write(a.txt)'] } });
    await host.invoke({ id: 'w', tool: 'write_file', args: { path: 'a.txt', content: 'hunter2' } });
    await host.invoke({ id: 'e', tool: 'exec', args: { command: process.execPath, args: ['--token=hunter2'] } });
    const audit = host.auditSnapshot();
    expect(audit).toEqual([
      { seq: 1, class: 'write', result: 'allow', decider: 'policy' },
      { seq: 2, class: 'process', result: 'deny', decider: 'policy' },
    ]);
    expect(JSON.stringify(audit)).not.toMatch(/hunter2|a\.txt|node/);
  });
});

describe('gates compose with the policy and can only tighten it', () => {
  it.each([
    ['deny', 'continue', 'denied', 'policy_denied', false, false],
    ['ask', 'continue', 'success', undefined, true, true],
    ['ask', 'deny', 'denied', 'hook_denied', true, false],
    ['allow', 'continue', 'success', undefined, true, false],
    ['allow', 'deny', 'denied', 'hook_denied', true, false],
  ] as const)('policy %s, gate %s: %s', async (policy, gateAnswer, status, kind, gateCalled, approverAsked) => {
    const gate = recordingGate(gateAnswer === 'deny' ? { decision: 'deny', reason: 'no' } : { decision: 'continue' });
    const { asked, approver } = scriptedApprover('allow_once');
    const host = await space.host({ tools: builtinTools(), policy: { [policy]: ['write(a.txt)'] }, gates: [gate], approver });
    const result = await host.invoke({ id: 'w', tool: 'write_file', args: { path: 'a.txt', content: 'x' } });
    expect(result.status).toBe(status);
    expect(result.error?.kind).toBe(kind);
    expect(gate.inputs.length > 0).toBe(gateCalled);
    expect(asked.length > 0).toBe(approverAsked);
  });

  it.each([
    ['throws', async () => Promise.reject(new Error('hook crashed'))],
    ['answers something unknown', async () => ({ decision: 'maybe' }) as unknown as GateAnswer],
  ])('a gate that %s denies', async (_case, evaluate) => {
    const host = await space.host({ tools: builtinTools(), policy: { allow: ['write(a.txt)'] }, gates: [{ name: 'odd', evaluate }] });
    expect((await host.invoke({ id: 'w', tool: 'write_file', args: { path: 'a.txt', content: 'x' } })).error?.kind).toBe('hook_denied');
  });
});
