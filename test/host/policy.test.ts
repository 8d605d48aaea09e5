import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Policy } from '../../src/host/policy.js';
import { isProtectedEnvName } from '../../src/host/protected-env.js';
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
  it('are the ones that change what runs, in any case: loader, PATH, shells, git, runtimes, config homes', () => {
    for (const name of ['PATH', 'Path', 'LD_PRELOAD', 'ld_library_path', 'DYLD_INSERT_LIBRARIES', 'GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_SSH_COMMAND']) {
      expect(isProtectedEnvName(name), name).toBe(true);
    }
    for (const name of ['GIT_EXEC_PATH', 'GIT_DIR', 'NODE_OPTIONS', 'npm_config_script_shell', 'BASH_ENV', 'ENV', 'PYTHONSTARTUP', 'PYTHONPATH']) {
      expect(isProtectedEnvName(name), name).toBe(true);
    }
    for (const name of ['PERL5OPT', 'RUBYOPT', 'JAVA_TOOL_OPTIONS', 'HOME', 'XDG_CONFIG_HOME', 'GOFLAGS', 'RUSTC_WRAPPER', 'MAKEFLAGS', 'PAGER']) {
      expect(isProtectedEnvName(name), name).toBe(true);
    }
    for (const name of ['NODE_ENV', 'CI', 'MYPATH', 'OLD_X', 'GIT_AUTHOR_NAME', 'GIT_COMMITTER_EMAIL', 'PYTHONUNBUFFERED', 'LANG', 'TZ']) {
      expect(isProtectedEnvName(name), name).toBe(false);
    }
  });

  it('are denied unless the process rule that matched grants them', () => {
    const withPath = processRequest({ env: { PATH: '/evil' } });
    expect(decide({ allow: ['process(npm)'] }, withPath)).toEqual({ decision: 'deny', rule: 'process(npm)', reason: 'protected_env' });
    expect(decide({ ask: ['process(npm publish)'] }, processRequest({ env: { LD_PRELOAD: 'x.so' } }))).toMatchObject({ decision: 'deny', reason: 'protected_env' });
    expect(decide({ allow: ['process'] }, withPath)).toMatchObject({ decision: 'allow', reason: 'rule' });
    expect(decide({ ask: ['process'] }, processRequest({ env: { DYLD_INSERT_LIBRARIES: 'x' } }))).toMatchObject({ decision: 'ask' });
    expect(decide({ allow: ['process(npm)'] }, processRequest({ env: { NODE_ENV: 'production' } }))).toMatchObject({ decision: 'allow' });
    expect(decide({ allow: ['shell'] }, shellRequest({ env: { PATH: '/evil' } }))).toMatchObject({ decision: 'allow' });
  });

  it('are granted by NAME=VALUE (that value) or NAME=* (any value) before the program', () => {
    const withOptions = processRequest({ env: { NODE_OPTIONS: '--max-old-space-size=4096' } });
    expect(decide({ allow: ['process(NODE_OPTIONS=--max-old-space-size=4096 npm)'] }, withOptions)).toMatchObject({ decision: 'allow' });
    expect(decide({ allow: ['process(NODE_OPTIONS=* npm)'] }, withOptions)).toMatchObject({ decision: 'allow' });
    expect(decide({ allow: ['process(NODE_OPTIONS=--require=./x.js npm)'] }, withOptions)).toMatchObject({ reason: 'protected_env' });
    expect(decide({ allow: ['process(NODE_OPTIONS=* npm)'] }, processRequest())).toMatchObject({ decision: 'allow' });
    expect(decide({ allow: ['process(PATH=* npm)'] }, withOptions)).toMatchObject({ decision: 'deny', reason: 'protected_env' });
    expect(decide({ allow: ['process(npm)', 'process(NODE_OPTIONS=* npm)'] }, withOptions)).toMatchObject({ decision: 'allow', rule: 'process(NODE_OPTIONS=* npm)' });
  });

  it('a named unprotected variable must have the value the rule gives it, when the process sets it', () => {
    expect(decide({ allow: ['process(NODE_ENV=production npm)'] }, processRequest({ env: { NODE_ENV: 'production' } }))).toMatchObject({ decision: 'allow' });
    expect(decide({ allow: ['process(NODE_ENV=production npm)'] }, processRequest({ env: { NODE_ENV: 'development' } }))).toMatchObject({
      decision: 'deny',
      reason: 'protected_env',
    });
  });

  it('an ask rule that does not grant the variables is not bypassed by an allow rule that does', () => {
    const withOptions = processRequest({ env: { NODE_OPTIONS: '--inspect' } });
    expect(decide({ ask: ['process(npm publish)'], allow: ['process(NODE_OPTIONS=* npm)'] }, withOptions)).toMatchObject({ decision: 'deny', reason: 'protected_env' });
    expect(decide({ ask: ['process(NODE_OPTIONS=* npm publish)'], allow: ['process(npm)'] }, withOptions)).toMatchObject({ decision: 'ask' });
  });

  it('in a deny rule, assignments narrow the rule to processes that set them', () => {
    const policy = { allow: ['process'], deny: ['process(GIT_SSH_COMMAND=* git)'] };
    expect(decide(policy, processRequest({ executable: { requested: 'git', resolved: '/usr/bin/git', lookup: 'path_search' } }))).toMatchObject({ decision: 'allow' });
    const withSsh = processRequest({ executable: { requested: 'git', resolved: '/usr/bin/git', lookup: 'path_search' }, env: { GIT_SSH_COMMAND: 'ssh -i k' } });
    expect(decide(policy, withSsh)).toMatchObject({ decision: 'deny', reason: 'rule' });
  });
});
