import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalAnswer, Approver } from '../../src/host/approval.js';
import type { CapabilityRequest } from '../../src/host/capability.js';
import { ToolError } from '../../src/host/errors.js';
import type { PolicyEvaluator } from '../../src/host/policy.js';
import { parseRule, ruleMatches } from '../../src/host/rules.js';
import type { ResolvedPath } from '../../src/host/workspace.js';
import { makeAuthorizer, makeSandbox, networkRequest, processRequest, shellRequest, subject, TestApprover, type Sandbox } from './approval-fixtures.js';
import { capabilityRequest, changeableLocations, withChange } from './request-arbitraries.js';

let box: Sandbox;
let paths: ResolvedPath[];
beforeAll(async () => {
  box = await makeSandbox();
  paths = [
    await box.workspace.resolveForRead('src/a.ts'),
    await box.workspace.resolveForRead('src'),
    await box.workspace.resolveForRead('docs/env-link'),
    await box.workspace.resolveForRead('.env'),
    await box.workspace.resolveForWrite('dist/new.js'),
    await box.workspace.resolveForRead(path.join(box.granted, 'c.txt')),
  ];
});
afterAll(() => box.cleanup());

const live = () => new AbortController().signal;

async function outcome(work: Promise<void>): Promise<string> {
  try {
    await work;
    return 'allowed';
  } catch (error) {
    if (error instanceof ToolError) return error.kind;
    throw error;
  }
}

const rulePool = [
  'read',
  'read(src/**)',
  'read(.env)',
  'read(docs/**)',
  'write',
  'write(dist/**)',
  'process',
  'process(npm)',
  'process(npm publish)',
  'process(/usr/bin/node)',
  'process(./bin/tool)',
  'shell',
  'network',
  'network(example.org)',
  'network(127.0.0.1:8080)',
  'network_tool(gh)',
  'skill',
  'skill(notes)',
  'instructions',
  'outside',
];
const rules = fc.subarray(rulePool, { maxLength: 5 });

describe('authorization invariants', () => {
  it('grants no access when a deny rule matches, whatever the allow/ask rules, flags, approver or earlier answers', async () => {
    await fc.assert(
      fc.asyncProperty(capabilityRequest(paths), fc.record({ allow: rules, ask: rules, deny: rules, approve: rules, yes: fc.boolean() }), async (request, setup) => {
        const denyMatches = setup.deny.some((text) => (['written', 'resolved'] as const).some((view) => ruleMatches(parseRule(text), request, box.root, view)));
        fc.pre(denyMatches);
        const approver = new TestApprover('allow_run');
        const { authorizer } = makeAuthorizer({ ...setup, policy: setup, approver, root: box.root });
        expect(await outcome(authorizer.authorize(subject(), request, live()))).toBe('policy_denied');
        expect(await outcome(authorizer.authorize(subject(), request, live()))).toBe('policy_denied');
        expect(approver.asked).toHaveLength(0);
        expect(authorizer.auditSnapshot().every((record) => record.result === 'deny' && record.decider === 'policy')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('never lets a remembered approval answer a request with any fact changed: the approver is asked again', async () => {
    const alwaysAsk: PolicyEvaluator = { evaluate: () => ({ decision: 'ask', rule: undefined, reason: 'rule' }), environmentNotGranted: () => [] };
    await fc.assert(
      fc.asyncProperty(
        capabilityRequest(paths).chain((request) => fc.tuple(fc.constant(request), fc.constantFrom(...changeableLocations(request)))),
        async ([request, location]) => {
          const approver = new TestApprover('allow_run');
          const { authorizer } = makeAuthorizer({ policy: alwaysAsk, approver });
          await authorizer.authorize(subject(), request, live());
          await authorizer.authorize(subject(), request, live());
          expect(approver.asked).toHaveLength(1);
          const changed = authorizer.authorize(subject(), withChange(request, location, paths), live());
          // A request of no known class is refused before any decision: no approval can answer it.
          if (location[0] === 'class') await expect(changed).rejects.toMatchObject({ kind: 'internal' });
          else await changed;
          expect(approver.asked).toHaveLength(location[0] === 'class' ? 1 : 2);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers each of many concurrent requests exactly once, asking one at a time, with cancellations at any moment', async () => {
    const distinct = [processRequest(), processRequest({ argv: ['test'] }), shellRequest(), networkRequest('https://example.org/')];
    const call = fc.record({ request: fc.constantFrom(...distinct), cancel: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(call, { minLength: 1, maxLength: 8 }),
        fc.array(fc.constantFrom<ApprovalAnswer>('allow_once', 'allow_run', 'deny'), { minLength: 8, maxLength: 8 }),
        async (s, calls, answers) => {
          let active = 0;
          let mostActive = 0;
          const asked: { stepId: string; signal: AbortSignal }[] = [];
          const approver: Approver = {
            approve: (request, signal) => {
              asked.push({ stepId: request.stepId!, signal });
              active++;
              mostActive = Math.max(mostActive, active);
              signal.addEventListener('abort', () => active--, { once: true });
              return s.schedule(Promise.resolve(answers[(asked.length - 1) % answers.length]!)).then((answer) => {
                if (!signal.aborted) active--;
                return answer;
              });
            },
          };
          const { authorizer, events } = makeAuthorizer({ policy: { ask: ['process', 'shell', 'network'] }, approver });
          const settled = calls.map(({ request, cancel }, index) => {
            const controller = new AbortController();
            if (cancel) void s.schedule(Promise.resolve()).then(() => controller.abort());
            return outcome(authorizer.authorize(subject(`s${index}`), request, controller.signal));
          });
          const results = await s.waitFor(Promise.all(settled));
          const resultOf = (stepId: string) => results[Number(stepId.slice(1))]!;
          expect(mostActive).toBeLessThanOrEqual(1);
          expect(new Set(asked.map((entry) => entry.stepId)).size).toBe(asked.length);
          for (const [index, result] of results.entries()) {
            expect(['allowed', 'approval_denied', ...(calls[index]!.cancel ? ['cancelled'] : [])]).toContain(result);
          }
          for (const entry of asked) if (resultOf(entry.stepId) === 'cancelled') expect(entry.signal.aborted).toBe(true);
          const audit = authorizer.auditSnapshot();
          expect(audit.map((record) => record.seq)).toEqual([...new Set(audit.map((record) => record.seq))]);
          expect(audit).toHaveLength(results.filter((result) => result !== 'cancelled').length);
          expect(audit.filter((record) => record.result === 'allow')).toHaveLength(results.filter((result) => result === 'allowed').length);
          expect(audit.filter((record) => record.decider === 'user')).toHaveLength(asked.filter((entry) => resultOf(entry.stepId) !== 'cancelled').length);
          expect(audit.filter((record) => record.decider !== 'user').every((record) => record.decider === 'remembered' && record.result === 'allow')).toBe(true);
          expect(events.filter((event) => event.type === 'approval_decided')).toHaveLength(audit.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the audit', () => {
  const canary = 'CANARY-7f3a';

  it('holds only sequence, class, result and decider, never a path, command, argument, env name or value, URL or script; events add only a network host', async () => {
    await writeFile(path.join(box.root, `${canary}.txt`), 'x');
    const secretFile = await box.workspace.resolveForRead(`${canary}.txt`);
    const requests: CapabilityRequest[] = [
      processRequest({ argv: ['publish', `--token=${canary}`], cwd: `/w/${canary}`, env: { [`${canary}_NAME`]: `value-${canary}` } }),
      processRequest({ executable: { requested: canary, resolved: `/usr/bin/${canary}`, lookup: 'path_search' } }),
      shellRequest({ script: `echo ${canary}` }),
      networkRequest(`https://api.example.org/${canary}?q=${canary}`, 'POST'),
      { class: 'read', path: secretFile, target: 'file' },
      { class: 'write', path: secretFile },
      { class: 'skill', name: canary, path: secretFile },
      { class: 'network_tool', tool: canary },
      { class: 'instructions', path: secretFile },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ request: fc.constantFrom(...requests), answer: fc.constantFrom<ApprovalAnswer>('allow_once', 'allow_run', 'deny') }), { minLength: 1, maxLength: 6 }),
        fc.subarray(['read', 'write', 'process', 'shell', 'network', 'skill', 'network_tool', 'instructions']),
        fc.subarray(['read', 'write', 'process', 'shell', 'network', 'skill', 'network_tool', 'instructions']),
        async (calls, allow, deny) => {
          const { authorizer, events } = makeAuthorizer({
            policy: { allow, deny, ask: ['read', 'write', 'process', 'shell', 'network', 'skill', 'network_tool', 'instructions'] },
            approve: ['process(npm)'],
            root: box.root,
            approver: { approve: async () => calls[0]!.answer },
          });
          for (const { request } of calls) await outcome(authorizer.authorize(subject(), request, live()));
          const audit = authorizer.auditSnapshot();
          expect(audit).toHaveLength(calls.length);
          for (const record of audit) expect(Object.keys(record).sort()).toEqual(['class', 'decider', 'result', 'seq']);
          expect(JSON.stringify(audit)).not.toMatch(/canary/i);
          expect(JSON.stringify(events)).not.toMatch(/canary/i);
          // A network request's events name its host and port (so a refused host can be told), nothing more of its URL.
          for (const event of events) if ('host' in event) expect([event.class, event.host]).toEqual(['network', 'api.example.org:443']);
        },
      ),
      { numRuns: 100 },
    );
  });
});
