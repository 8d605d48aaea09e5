import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Policy, protectedEnvNames } from '../../src/host/policy.js';
import { makeSandbox, networkRequest, processRequest, readRequest, shellRequest, writeRequest, type Sandbox } from './approval-fixtures.js';

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox();
});
afterAll(() => box.cleanup());

const decide = (rules: { allow?: string[]; ask?: string[]; deny?: string[] }, request: Parameters<Policy['evaluate']>[0]) => {
  const evaluation = Policy.fromText(rules).evaluate(request, box.root);
  return { decision: evaluation.decision, rule: evaluation.rule?.text, reason: evaluation.reason };
};

describe('policy evaluation order', () => {
  it('denies by default when no rule matches', () => {
    expect(decide({}, processRequest())).toEqual({ decision: 'deny', rule: undefined, reason: 'no_rule' });
    expect(decide({ allow: ['read'] }, processRequest())).toEqual({ decision: 'deny', rule: undefined, reason: 'no_rule' });
  });

  it('deny beats ask, ask beats allow, whatever order the rules were given in', () => {
    const request = processRequest({ argv: ['publish'] });
    expect(decide({ allow: ['process'], ask: ['process(npm)'], deny: ['process(npm publish)'] }, request)).toEqual({
      decision: 'deny',
      rule: 'process(npm publish)',
      reason: 'rule',
    });
    expect(decide({ allow: ['process(npm)'], ask: ['process(npm publish)'] }, request)).toMatchObject({ decision: 'ask', rule: 'process(npm publish)' });
    expect(decide({ allow: ['process(npm)'] }, request)).toMatchObject({ decision: 'allow', rule: 'process(npm)' });
  });
});

describe('paths as written and as resolved', () => {
  it('a deny matching the path as written wins even when the resolved path is allowed', async () => {
    const link = await readRequest(box.workspace, 'docs/env-link');
    expect(decide({ allow: ['read'], deny: ['read(docs/env-link)'] }, link)).toMatchObject({ decision: 'deny', reason: 'rule' });
  });

  it('a deny matching the resolved path wins even when the written path is allowed', async () => {
    const link = await readRequest(box.workspace, 'docs/env-link');
    expect(decide({ allow: ['read(docs/**)', 'read(.env)'], deny: ['read(.env)'] }, link)).toMatchObject({ decision: 'deny', rule: 'read(.env)' });
  });

  it('an allow must match the resolved path: a symlink cannot borrow the permission of its own name', async () => {
    const link = await readRequest(box.workspace, 'docs/env-link');
    expect(decide({ allow: ['read(docs/**)'] }, link)).toMatchObject({ decision: 'deny', reason: 'no_rule' });
    expect(decide({ allow: ['read(.env)'] }, link)).toMatchObject({ decision: 'allow' });
  });

  it('an ask matching either view asks', async () => {
    const link = await readRequest(box.workspace, 'docs/env-link');
    expect(decide({ allow: ['read'], ask: ['read(docs/**)'] }, link).decision).toBe('ask');
    expect(decide({ allow: ['read'], ask: ['read(.env)'] }, link).decision).toBe('ask');
  });
});

describe('paths outside the workspace', () => {
  it('also need the outside rule, and the stricter answer stands', async () => {
    const cached = await readRequest(box.workspace, path.join(box.granted, 'c.txt'));
    expect(decide({ allow: ['read'] }, cached)).toEqual({ decision: 'deny', rule: undefined, reason: 'outside' });
    expect(decide({ allow: ['read', 'outside'] }, cached)).toMatchObject({ decision: 'allow', reason: 'rule' });
    expect(decide({ allow: ['read'], ask: ['outside'] }, cached)).toEqual({ decision: 'ask', rule: 'outside', reason: 'outside' });
    expect(decide({ allow: ['read'], deny: ['outside'] }, cached)).toEqual({ decision: 'deny', rule: 'outside', reason: 'outside' });
    expect(decide({ allow: ['outside'] }, cached)).toMatchObject({ decision: 'deny', reason: 'no_rule' });
  });

  it('the outside rule never matters inside the workspace', async () => {
    expect(decide({ allow: ['write(dist/**)'], deny: ['outside'] }, await writeRequest(box.workspace, 'dist/x.js')).decision).toBe('allow');
  });
});

describe('protected environment variables', () => {
  it('finds PATH, LD_* and DYLD_* in any case, for direct processes only', () => {
    expect(protectedEnvNames(processRequest({ envNames: ['NODE_ENV', 'PATH', 'LD_PRELOAD', 'DYLD_INSERT_LIBRARIES', 'Path', 'ld_library_path'] }))).toEqual([
      'PATH',
      'LD_PRELOAD',
      'DYLD_INSERT_LIBRARIES',
      'Path',
      'ld_library_path',
    ]);
    expect(protectedEnvNames(processRequest({ envNames: ['NODE_ENV', 'MYPATH', 'OLD_X'] }))).toEqual([]);
    expect(protectedEnvNames(shellRequest({ envNames: ['PATH'] }))).toEqual([]);
  });

  it('are denied unless the process rule that decided is unrestricted', () => {
    const withPath = processRequest({ envNames: ['PATH'] });
    expect(decide({ allow: ['process(npm)'] }, withPath)).toEqual({ decision: 'deny', rule: 'process(npm)', reason: 'protected_env' });
    expect(decide({ ask: ['process(npm publish)'] }, processRequest({ envNames: ['LD_PRELOAD'] }))).toMatchObject({ decision: 'deny', reason: 'protected_env' });
    expect(decide({ allow: ['process'] }, withPath)).toMatchObject({ decision: 'allow', reason: 'rule' });
    expect(decide({ ask: ['process'] }, processRequest({ envNames: ['DYLD_INSERT_LIBRARIES'] }))).toMatchObject({ decision: 'ask' });
    expect(decide({ allow: ['process(npm)'] }, processRequest({ envNames: ['NODE_ENV'] }))).toMatchObject({ decision: 'allow' });
    expect(decide({ allow: ['shell'] }, shellRequest({ envNames: ['PATH'] }))).toMatchObject({ decision: 'allow' });
  });
});

describe('other classes', () => {
  it('decide network requests by normalized host', () => {
    expect(decide({ allow: ['network(example.org)'] }, networkRequest('https://EXAMPLE.org/x?token=1')).decision).toBe('allow');
    expect(decide({ allow: ['network(example.org)'] }, networkRequest('https://example.org:8443/')).decision).toBe('allow');
    expect(decide({ allow: ['network(example.org:443)'] }, networkRequest('https://example.org:8443/')).decision).toBe('deny');
    expect(decide({ allow: ['network(example.org)'], deny: ['network(example.org:8443)'] }, networkRequest('https://example.org:8443/')).decision).toBe(
      'deny',
    );
  });
});
