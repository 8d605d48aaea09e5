import { describe, expect, it } from 'vitest';
import type { ApprovalAnswer, Approver } from '../../src/host/approval.js';
import { maxAuditRecords } from '../../src/host/approval-audit.js';
import { ToolError } from '../../src/host/errors.js';
import type { GateAnswer, PreToolGate } from '../../src/host/gates.js';
import type { PolicyEvaluation, PolicyEvaluator } from '../../src/host/policy.js';
import { parseRule } from '../../src/host/rules.js';
import { makeAuthorizer, processRequest, settle, subject, TestApprover } from './approval-fixtures.js';

async function refusal(work: Promise<unknown>): Promise<ToolError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

const live = () => new AbortController().signal;
const publish = processRequest();
const askPublish = { ask: ['process(npm publish)'] };

function gate(name: string, answer: GateAnswer | (() => Promise<GateAnswer>)): PreToolGate & { inputs: unknown[] } {
  const inputs: unknown[] = [];
  return {
    name,
    inputs,
    evaluate: async (input) => {
      inputs.push(input);
      return typeof answer === 'function' ? answer() : answer;
    },
  };
}

describe('policy and gates come first', () => {
  it('allows what the policy allows without asking anyone, and records it', async () => {
    const approver = new TestApprover();
    const { authorizer, events } = makeAuthorizer({ policy: { allow: ['process(npm)'] }, approver });
    await authorizer.authorize(subject(), publish, live());
    expect(approver.asked).toHaveLength(0);
    expect(authorizer.auditSnapshot()).toEqual([{ seq: 1, class: 'process', result: 'allow', decider: 'policy' }]);
    expect(events).toEqual([{ type: 'approval_decided', request: 1, stepId: 'publish', class: 'process', result: 'allow', decider: 'policy' }]);
  });

  it('denies by policy with a message naming the step, the request and the rule that grants it', async () => {
    const { authorizer } = makeAuthorizer({ yes: true, approver: new TestApprover('allow_run') });
    const error = await refusal(authorizer.authorize(subject(), publish, live()));
    expect(error.kind).toBe('policy_denied');
    expect(error.message).toContain('step publish: process request "run npm publish --tag next" was denied by policy: no rule allows it');
    expect(error.message).toContain(`--allow 'process(npm publish --tag next)'`);
    expect(authorizer.auditSnapshot()).toEqual([{ seq: 1, class: 'process', result: 'deny', decider: 'policy' }]);
  });

  it('names the deny rule that matched, and the grant a variable needs', async () => {
    const denied = await refusal(makeAuthorizer({ policy: { allow: ['process'], deny: ['process(npm publish)'] } }).authorizer.authorize(subject(), publish, live()));
    expect(denied.message).toContain('the rule deny: process(npm publish) matches');
    const withPath = processRequest({ env: { PATH: '/secret-value' } });
    const env = await refusal(makeAuthorizer({ policy: { allow: ['process(npm)'] } }).authorizer.authorize(subject(), withPath, live()));
    expect(env.kind).toBe('policy_denied');
    expect(env.message).toMatch(
      /sets PATH .*\(process\(npm\)\) does not grant \(PATH can change what the program executes\); to grant it to this program, add --allow 'process\(PATH=\* npm publish --tag next\)'/,
    );
    expect(env.message).not.toContain('policy.env');
    expect(env.message).not.toContain('/secret-value');
    // A variable nobody knows: the rule may grant it, and so may policy.env if it changes nothing about what runs.
    const unknown = await refusal(makeAuthorizer({ policy: { allow: ['process(npm)'] } }).authorizer.authorize(subject(), processRequest({ env: { MY_SETTING: '1' } }), live()));
    expect(unknown.message).toMatch(
      /add --allow 'process\(MY_SETTING=\* npm publish --tag next\)'.*, or, if it changes nothing about what any program runs, list it in policy\.env: \[MY_SETTING\]/,
    );
  });

  it('lets a gate deny what the policy allows, and a failing or malformed gate denies too', async () => {
    const cases: [PreToolGate, RegExp][] = [
      [gate('guard', { decision: 'deny', reason: 'no publishing on Fridays' }), /denied by hook guard: no publishing on Fridays/],
      [gate('broken', () => Promise.reject(new Error('exit code 2'))), /denied by hook broken: the gate failed: exit code 2/],
      [gate('odd', { decision: 'maybe' } as unknown as GateAnswer), /denied by hook odd: malformed answer/],
    ];
    for (const [denying, message] of cases) {
      const { authorizer } = makeAuthorizer({ policy: { allow: ['process'] }, gates: [gate('fine', { decision: 'continue' }), denying] });
      const error = await refusal(authorizer.authorize(subject(), publish, live()));
      expect(error.kind).toBe('hook_denied');
      expect(error.message).toMatch(message);
      expect(authorizer.auditSnapshot()).toEqual([{ seq: 1, class: 'process', result: 'deny', decider: 'hook' }]);
    }
  });

  it('consults gates before any approval, telling them what the policy decided', async () => {
    const approver = new TestApprover();
    const watching = gate('watch', { decision: 'continue' });
    const { authorizer } = makeAuthorizer({ policy: askPublish, approver, gates: [watching, gate('no', { decision: 'deny', reason: 'no' })] });
    await refusal(authorizer.authorize(subject(), publish, live()));
    expect(approver.asked).toHaveLength(0);
    expect(watching.inputs).toEqual([{ ...subject(), request: publish, policyDecision: 'ask' }]);
  });
});

describe('remembered "allow for this run"', () => {
  it('answers an identical request without asking again; "allow once" does not', async () => {
    const once = new TestApprover('allow_once');
    const first = makeAuthorizer({ policy: askPublish, approver: once }).authorizer;
    await first.authorize(subject(), publish, live());
    await first.authorize(subject(), processRequest(), live());
    expect(once.asked).toHaveLength(2);

    const forRun = new TestApprover('allow_run');
    const second = makeAuthorizer({ policy: askPublish, approver: forRun }).authorizer;
    await second.authorize(subject(), publish, live());
    await second.authorize(subject('again'), processRequest(), live());
    await second.authorize(subject(), processRequest({ argv: ['publish', '--tag', 'latest'] }), live());
    expect(forRun.asked).toHaveLength(2);
    expect(second.auditSnapshot().map((record) => record.decider)).toEqual(['user', 'remembered', 'user']);
  });

  it('never overrides a later policy deny or a gate deny', async () => {
    let decision: PolicyEvaluation = { decision: 'ask', rule: parseRule('process(npm)'), reason: 'rule' };
    const policy: PolicyEvaluator = { evaluate: () => decision, environmentNotGranted: () => [] };
    let gateAnswer: GateAnswer = { decision: 'continue' };
    const approver = new TestApprover('allow_run');
    const { authorizer } = makeAuthorizer({ policy, approver, gates: [gate('g', () => Promise.resolve(gateAnswer))] });
    await authorizer.authorize(subject(), publish, live());
    gateAnswer = { decision: 'deny', reason: 'changed its mind' };
    expect((await refusal(authorizer.authorize(subject(), publish, live()))).kind).toBe('hook_denied');
    gateAnswer = { decision: 'continue' };
    decision = { decision: 'deny', rule: parseRule('process(npm publish)'), reason: 'rule' };
    expect((await refusal(authorizer.authorize(subject(), publish, live()))).kind).toBe('policy_denied');
    expect(approver.asked).toHaveLength(1);
  });

  it('is not shared with another authorizer (another run)', async () => {
    const approver = new TestApprover('allow_run');
    await makeAuthorizer({ policy: askPublish, approver }).authorizer.authorize(subject(), publish, live());
    await makeAuthorizer({ policy: askPublish, approver }).authorizer.authorize(subject(), publish, live());
    expect(approver.asked).toHaveLength(2);
  });
});

describe('scripted answers', () => {
  it('--approve answers a matching request once, echoes the rule, and leaves others to the approver', async () => {
    const approver = new TestApprover('deny');
    const { authorizer, echoed } = makeAuthorizer({ policy: { ask: ['process'] }, approver, approve: ['process(npm publish)'] });
    await authorizer.authorize(subject(), publish, live());
    expect(echoed).toEqual([{ ...subject(), request: publish, answeredBy: { flag: 'approve', rule: 'process(npm publish)' } }]);
    expect((await refusal(authorizer.authorize(subject('install'), processRequest({ argv: ['install'] }), live()))).kind).toBe('approval_denied');
    expect(approver.asked).toHaveLength(1);
    expect(authorizer.auditSnapshot().map(({ result, decider }) => `${result}/${decider}`)).toEqual(['allow/flag', 'deny/user']);
  });

  it('--yes answers every approval request and is echoed, but never turns a deny into an allow', async () => {
    const { authorizer, echoed } = makeAuthorizer({ policy: { ask: ['process(npm)'], deny: ['process(npm install)'] }, yes: true });
    await authorizer.authorize(subject(), publish, live());
    expect(echoed.map((decision) => decision.answeredBy)).toEqual([{ flag: 'yes' }]);
    expect((await refusal(authorizer.authorize(subject(), processRequest({ argv: ['install'] }), live()))).kind).toBe('policy_denied');
    const gated = makeAuthorizer({ policy: { ask: ['process'] }, yes: true, gates: [gate('g', { decision: 'deny', reason: 'r' })] });
    expect((await refusal(gated.authorizer.authorize(subject(), publish, live()))).kind).toBe('hook_denied');
    expect(gated.echoed).toEqual([]);
  });

  it('answers a request that sets PATH only through an --approve rule that grants PATH', async () => {
    const withPath = processRequest({ env: { PATH: '/opt/bin' } });
    const narrow = makeAuthorizer({ policy: { ask: ['process'] }, approve: ['process(npm)'] });
    expect((await refusal(narrow.authorizer.authorize(subject(), withPath, live()))).kind).toBe('approval_denied');
    const granting = makeAuthorizer({ policy: { ask: ['process'] }, approve: ['process(PATH=/opt/bin npm)'] });
    await granting.authorizer.authorize(subject(), withPath, live());
    expect(granting.echoed).toHaveLength(1);
    const wide = makeAuthorizer({ policy: { ask: ['process'] }, approve: ['process'] });
    await wide.authorizer.authorize(subject(), withPath, live());
    expect(wide.echoed).toHaveLength(1);
  });
});

describe('when nobody can answer', () => {
  it('denies at once with the step, the refused request and a working --approve flag, asking nobody', async () => {
    const { authorizer, events } = makeAuthorizer({ policy: askPublish });
    const error = await refusal(authorizer.authorize(subject(), publish, live()));
    expect(error.kind).toBe('approval_denied');
    expect(error.message).toBe(
      `step publish: process request "run npm publish --tag next" needs approval (the rule ask: process(npm publish) matches) and nobody can answer here (no terminal, CI=true or --no-input); to approve it, run again with --approve 'process(npm publish --tag next)' (or --yes to approve every request)`,
    );
    expect(events.map((event) => event.type)).toEqual(['approval_decided']);
    expect(authorizer.auditSnapshot()).toEqual([{ seq: 1, class: 'process', result: 'deny', decider: 'policy' }]);
    const rerun = makeAuthorizer({ policy: askPublish, approve: ['process(npm publish --tag next)'] });
    await rerun.authorizer.authorize(subject(), publish, live());
  });
});

describe('the approver', () => {
  it('is told the step, tool, sequence, request and the ask rule, and its "deny" is a typed denial', async () => {
    const approver = new TestApprover('deny');
    const { authorizer, events } = makeAuthorizer({ policy: askPublish, approver });
    const error = await refusal(authorizer.authorize(subject(), publish, live()));
    expect(error.kind).toBe('approval_denied');
    expect(error.message).toContain(`denied at the approval prompt; to approve it without a prompt, run again with --approve 'process(npm publish --tag next)'`);
    expect(approver.asked).toEqual([{ ...subject(), seq: 1, request: publish, askedBy: 'process(npm publish)', rememberable: true }]);
    expect(events.map((event) => event.type)).toEqual(['approval_requested', 'approval_decided']);
    expect(authorizer.auditSnapshot()).toEqual([{ seq: 1, class: 'process', result: 'deny', decider: 'user' }]);
  });

  it('fails closed when the approver throws or answers something unknown', async () => {
    const throwing: Approver = { approve: () => Promise.reject(new Error('terminal went away')) };
    const first = await refusal(makeAuthorizer({ policy: askPublish, approver: throwing }).authorizer.authorize(subject(), publish, live()));
    expect(first.kind).toBe('approval_denied');
    expect(first.message).toContain('the approver failed (terminal went away)');
    const odd: Approver = { approve: () => Promise.resolve('sure' as ApprovalAnswer) };
    expect((await refusal(makeAuthorizer({ policy: askPublish, approver: odd }).authorizer.authorize(subject(), publish, live()))).kind).toBe('approval_denied');
  });
});

describe('exactly one answer per request, one prompt at a time', () => {
  it('asks about concurrent requests one after another', async () => {
    const approver = new TestApprover('wait');
    const { authorizer } = makeAuthorizer({ policy: { ask: ['process'] }, approver });
    const first = authorizer.authorize(subject('a'), processRequest({ argv: ['a'] }), live());
    const second = authorizer.authorize(subject('b'), processRequest({ argv: ['b'] }), live());
    await settle();
    expect(approver.asked.map((request) => request.stepId)).toEqual(['a']);
    approver.release('allow_once');
    await first;
    await settle();
    expect(approver.asked.map((request) => request.stepId)).toEqual(['a', 'b']);
    approver.release('allow_once');
    await second;
  });

  it('lets an identical request queued behind an "allow for this run" answer reuse it', async () => {
    const approver = new TestApprover('wait');
    const { authorizer } = makeAuthorizer({ policy: askPublish, approver });
    const pending = [1, 2, 3].map(() => authorizer.authorize(subject(), processRequest(), live()));
    await settle();
    approver.release('allow_run');
    await Promise.all(pending);
    expect(approver.asked).toHaveLength(1);
    expect(authorizer.auditSnapshot().map((record) => `${record.seq}:${record.decider}`)).toEqual(['1:user', '2:remembered', '3:remembered']);
  });
});

describe('cancellation', () => {
  it('while the approver is asked: a typed cancelled error at once, the approver signal aborted, a late answer ignored', async () => {
    const approver = new TestApprover('wait');
    const { authorizer, events } = makeAuthorizer({ policy: askPublish, approver });
    const controller = new AbortController();
    const waiting = authorizer.authorize(subject(), publish, controller.signal);
    await settle();
    expect(approver.signals[0]!.aborted).toBe(false);
    controller.abort();
    const error = await refusal(waiting);
    expect(error.kind).toBe('cancelled');
    expect(error.message).toContain('cancelled while waiting for a decision');
    expect(approver.signals[0]!.aborted).toBe(true);
    approver.release('allow_run');
    await settle();
    expect(authorizer.auditSnapshot()).toEqual([]);
    expect(events.map((event) => event.type)).toEqual(['approval_requested']);
    const next = authorizer.authorize(subject(), publish, live());
    await settle();
    expect(approver.asked).toHaveLength(2);
    approver.release('allow_once');
    await next;
  });

  it('while queued: leaves the queue without ever reaching the approver', async () => {
    const approver = new TestApprover('wait');
    const { authorizer } = makeAuthorizer({ policy: { ask: ['process'] }, approver });
    const controller = new AbortController();
    const first = authorizer.authorize(subject('a'), processRequest({ argv: ['a'] }), live());
    const queued = authorizer.authorize(subject('b'), processRequest({ argv: ['b'] }), controller.signal);
    const third = authorizer.authorize(subject('c'), processRequest({ argv: ['c'] }), live());
    await settle();
    controller.abort();
    expect((await refusal(queued)).kind).toBe('cancelled');
    approver.release('allow_once');
    await first;
    await settle();
    expect(approver.asked.map((request) => request.stepId)).toEqual(['a', 'c']);
    approver.release('allow_once');
    await third;
  });

  it('while a gate runs, and before anything started', async () => {
    const controller = new AbortController();
    const slow = gate('slow', () => new Promise<GateAnswer>(() => {}));
    const { authorizer } = makeAuthorizer({ policy: { allow: ['process'] }, gates: [slow] });
    const waiting = authorizer.authorize(subject(), publish, controller.signal);
    await settle();
    controller.abort();
    expect((await refusal(waiting)).kind).toBe('cancelled');
    expect((await refusal(authorizer.authorize(subject(), publish, controller.signal))).kind).toBe('cancelled');
    expect(authorizer.auditSnapshot()).toEqual([]);
  });
});

describe('the audit snapshot', () => {
  it('is bounded: the oldest decisions are dropped first and sequence numbers show the gap', async () => {
    const { authorizer } = makeAuthorizer({ policy: { allow: ['process'] } });
    for (let index = 0; index < maxAuditRecords + 5; index++) await authorizer.authorize(subject(), publish, live());
    const audit = authorizer.auditSnapshot();
    expect(audit).toHaveLength(maxAuditRecords);
    expect(audit[0]).toEqual({ seq: 6, class: 'process', result: 'allow', decider: 'policy' });
    expect(audit.at(-1)!.seq).toBe(maxAuditRecords + 5);
  });
});
