import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvGrants } from '../../src/host/env-grants.js';
import { Policy } from '../../src/host/policy.js';
import { parseRule } from '../../src/host/rules.js';
import { isProtectedEnvName } from '../../src/host/protected-env.js';
import { makeSandbox, processRequest, readRequest, shellRequest, writeRequest, type Sandbox } from './approval-fixtures.js';

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox();
});
afterAll(() => box.cleanup());

const decide = (rules: { allow?: string[]; ask?: string[]; deny?: string[]; env?: string[] }, request: Parameters<Policy['evaluate']>[0]) => {
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

describe('ask rules that only narrow (a called file’s)', () => {
  it('turn what the other rules allow into a question and never grant what they deny', async () => {
    const policy = (allow: string[], deny: string[] = []) =>
      new Policy({
        allow: allow.map((text) => parseRule(text)),
        deny: deny.map((text) => parseRule(text)),
        askIfAllowed: ['shell', 'write(**)', 'network'].map((text) => parseRule(text)),
      });
    const write = await writeRequest(box.workspace, 'out/a.txt');
    expect(policy([]).evaluate(write, box.root)).toMatchObject({ decision: 'deny', reason: 'no_rule' });
    expect(policy([]).evaluate(shellRequest(), box.root)).toMatchObject({ decision: 'deny', reason: 'no_rule' });
    expect(policy(['write(out/**)']).evaluate(write, box.root)).toMatchObject({ decision: 'ask', rule: { text: 'write(**)' } });
    expect(policy(['write(out/**)'], ['write(out/a.txt)']).evaluate(write, box.root)).toMatchObject({ decision: 'deny', reason: 'rule' });
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

describe('environment variables a process sets', () => {
  it('are known to change what runs, in any case: loader, PATH, shells, git, runtimes, config homes, build tools, helpers', () => {
    for (const name of ['PATH', 'Path', 'LD_PRELOAD', 'ld_library_path', 'DYLD_INSERT_LIBRARIES', 'GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_SSH_COMMAND']) {
      expect(isProtectedEnvName(name), name).toBe(true);
    }
    for (const name of ['GIT_EXEC_PATH', 'GIT_DIR', 'NODE_OPTIONS', 'npm_config_script_shell', 'BASH_ENV', 'ENV', 'PYTHONSTARTUP', 'PYTHONPATH']) {
      expect(isProtectedEnvName(name), name).toBe(true);
    }
    for (const name of ['PERL5OPT', 'RUBYOPT', 'JAVA_TOOL_OPTIONS', 'HOME', 'XDG_CONFIG_HOME', 'GOFLAGS', 'RUSTC_WRAPPER', 'MAKEFLAGS', 'PAGER']) {
      expect(isProtectedEnvName(name), name).toBe(true);
    }
    for (const name of ['TAR_OPTIONS', 'OPENSSL_CONF', 'CC', 'RSYNC_RSH', 'DOTNET_STARTUP_HOOKS', 'CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER', 'RUSTFLAGS', 'PIP_INDEX_URL']) {
      expect(isProtectedEnvName(name), name).toBe(true);
    }
    for (const name of ['NODE_ENV', 'CI', 'MYPATH', 'OLD_X', 'GIT_AUTHOR_NAME', 'GIT_COMMITTER_EMAIL', 'PYTHONUNBUFFERED', 'LANG', 'TZ']) {
      expect(isProtectedEnvName(name), name).toBe(false);
    }
  });

  it('are denied unless harmless, granted by policy.env or by the process rule that matched', () => {
    const withPath = processRequest({ env: { PATH: '/evil' } });
    expect(decide({ allow: ['process(npm)'] }, withPath)).toEqual({ decision: 'deny', rule: 'process(npm)', reason: 'env_not_granted' });
    expect(decide({ ask: ['process(npm publish)'] }, processRequest({ env: { LD_PRELOAD: 'x.so' } }))).toMatchObject({ decision: 'deny', reason: 'env_not_granted' });
    // No list of bad names is complete: a name nobody listed needs a grant too.
    const withTar = processRequest({ env: { TAR_OPTIONS: '--checkpoint=1 --checkpoint-action=exec=id' } });
    expect(decide({ allow: ['process(npm)'] }, withTar)).toMatchObject({ decision: 'deny', reason: 'env_not_granted' });
    expect(decide({ allow: ['process(npm)'] }, processRequest({ env: { GREETING: 'hi' } }))).toMatchObject({ decision: 'deny', reason: 'env_not_granted' });
    expect(decide({ allow: ['process'] }, withPath)).toMatchObject({ decision: 'allow', reason: 'rule' });
    expect(decide({ ask: ['process'] }, processRequest({ env: { DYLD_INSERT_LIBRARIES: 'x' } }))).toMatchObject({ decision: 'ask' });
    for (const name of ['NODE_ENV', 'CI', 'TZ', 'LANG', 'LC_ALL', 'NO_COLOR', 'RUST_BACKTRACE', 'PYTHONUNBUFFERED']) {
      expect(decide({ allow: ['process(npm)'] }, processRequest({ env: { [name]: 'x' } })), name).toMatchObject({ decision: 'allow' });
    }
    expect(decide({ allow: ['shell'] }, shellRequest({ env: { PATH: '/evil' } }))).toMatchObject({ decision: 'allow' });
  });

  it('are granted by policy.env by name or prefix, never a variable known to change what runs', () => {
    const env = ['GREETING', 'APP_*'];
    expect(decide({ allow: ['process(npm)'], env }, processRequest({ env: { GREETING: 'hi', APP_MODE: 'x' } }))).toMatchObject({ decision: 'allow' });
    expect(decide({ allow: ['process(npm)'], env }, processRequest({ env: { APPX: 'x' } }))).toMatchObject({ reason: 'env_not_granted' });
    expect(decide({ allow: ['process(npm)'], env: ['PATH', 'TAR_*'] }, processRequest({ env: { PATH: '/evil' } }))).toMatchObject({ reason: 'env_not_granted' });
    expect(decide({ allow: ['process(npm)'], env: ['PATH', 'TAR_*'] }, processRequest({ env: { TAR_OPTIONS: 'x' } }))).toMatchObject({ reason: 'env_not_granted' });
  });

  it('are granted when the workflow passes them on purpose (secrets:, host_env:), unless known to change what runs', () => {
    const policy = new Policy({ allow: [parseRule('process(npm)')] }, new EnvGrants([], ['NPM_TOKEN', 'NODE_OPTIONS']));
    expect(policy.evaluate(processRequest({ env: { NPM_TOKEN: 's3cret-token' } }), box.root)).toMatchObject({ decision: 'allow' });
    expect(policy.evaluate(processRequest({ env: { NODE_OPTIONS: '--require ./x.js' } }), box.root)).toMatchObject({ reason: 'env_not_granted', variables: ['NODE_OPTIONS'] });
  });

  it('are granted by NAME=VALUE (that value) or NAME=* (any value) before the program', () => {
    const withOptions = processRequest({ env: { NODE_OPTIONS: '--max-old-space-size=4096' } });
    expect(decide({ allow: ['process(NODE_OPTIONS=--max-old-space-size=4096 npm)'] }, withOptions)).toMatchObject({ decision: 'allow' });
    expect(decide({ allow: ['process(NODE_OPTIONS=* npm)'] }, withOptions)).toMatchObject({ decision: 'allow' });
    expect(decide({ allow: ['process(NODE_OPTIONS=--require=./x.js npm)'] }, withOptions)).toMatchObject({ reason: 'env_not_granted' });
    expect(decide({ allow: ['process(NODE_OPTIONS=* npm)'] }, processRequest())).toMatchObject({ decision: 'allow' });
    expect(decide({ allow: ['process(PATH=* npm)'] }, withOptions)).toMatchObject({ decision: 'deny', reason: 'env_not_granted' });
    expect(decide({ allow: ['process(npm)', 'process(NODE_OPTIONS=* npm)'] }, withOptions)).toMatchObject({ decision: 'allow', rule: 'process(NODE_OPTIONS=* npm)' });
  });

  it('a named variable must have the value the rule gives it, when the process sets it, even a harmless or granted one', () => {
    expect(decide({ allow: ['process(NODE_ENV=production npm)'] }, processRequest({ env: { NODE_ENV: 'production' } }))).toMatchObject({ decision: 'allow' });
    expect(decide({ allow: ['process(NODE_ENV=production npm)'] }, processRequest({ env: { NODE_ENV: 'development' } }))).toMatchObject({
      decision: 'deny',
      reason: 'env_not_granted',
    });
    expect(decide({ allow: ['process(APP=1 npm)'], env: ['APP'] }, processRequest({ env: { APP: '2' } }))).toMatchObject({ reason: 'env_not_granted' });
  });

  it('an ask rule that does not grant the variables is not bypassed by an allow rule that does', () => {
    const withOptions = processRequest({ env: { NODE_OPTIONS: '--inspect' } });
    expect(decide({ ask: ['process(npm publish)'], allow: ['process(NODE_OPTIONS=* npm)'] }, withOptions)).toMatchObject({ decision: 'deny', reason: 'env_not_granted' });
    expect(decide({ ask: ['process(NODE_OPTIONS=* npm publish)'], allow: ['process(npm)'] }, withOptions)).toMatchObject({ decision: 'ask' });
  });

  it('that change only known programs are matched against those programs’ rules: another program may carry the value they grant', () => {
    const node = (env: Record<string, string>) => processRequest({ executable: { requested: 'node', resolved: '/usr/bin/node', lookup: 'path_search' }, argv: ['-e', 'x'], env });
    const recipe = ['process(npm_config_cache=.npm-cache npm)', 'process(node -e)'];
    expect(decide({ allow: recipe }, node({ npm_config_cache: '.npm-cache' }))).toMatchObject({ decision: 'allow', rule: 'process(node -e)' });
    // Only that value, only from an allow rule, never a variable that changes every program.
    expect(decide({ allow: recipe }, node({ npm_config_cache: '/elsewhere' }))).toMatchObject({ reason: 'env_not_granted' });
    expect(decide({ allow: ['process(node -e)'], ask: ['process(npm_config_cache=* npm)'] }, node({ npm_config_cache: 'x' }))).toMatchObject({ reason: 'env_not_granted' });
    expect(decide({ allow: ['process(NODE_OPTIONS=* npm)', 'process(node -e)'] }, node({ NODE_OPTIONS: '--require ./x.js' }))).toMatchObject({ reason: 'env_not_granted' });
    expect(decide({ allow: ['process(GIT_DIR=* git)', 'process(node -e)'] }, node({ GIT_DIR: '.other' }))).toMatchObject({ decision: 'allow' });
    // A rule of an unrelated program grants nothing; a deny of the affected program takes it back.
    expect(decide({ allow: ['process(npm_config_cache=* tar)', 'process(node -e)'] }, node({ npm_config_cache: 'x' }))).toMatchObject({ reason: 'env_not_granted' });
    expect(decide({ allow: recipe, deny: ['process(npm)'] }, node({ npm_config_cache: '.npm-cache' }))).toMatchObject({ reason: 'env_not_granted' });
    expect(decide({ allow: recipe, deny: ['process(npm_config_cache=* npm)'] }, node({ npm_config_cache: '.npm-cache' }))).toMatchObject({ reason: 'env_not_granted' });
    expect(decide({ allow: recipe, deny: ['process(npm publish)'] }, node({ npm_config_cache: '.npm-cache' }))).toMatchObject({ decision: 'allow' });
    // The affected programs themselves need their own rule to grant it, and a rule that pins another value wins.
    const npx = processRequest({ executable: { requested: 'npx', resolved: '/usr/bin/npx', lookup: 'path_search' }, env: { npm_config_cache: '.npm-cache' } });
    expect(decide({ allow: [...recipe, 'process(npx)'] }, npx)).toMatchObject({ reason: 'env_not_granted', rule: 'process(npx)' });
    expect(decide({ allow: ['process(npm_config_cache=.npm-cache npm)', 'process(npm_config_cache=other node -e)'] }, node({ npm_config_cache: '.npm-cache' }))).toMatchObject({
      reason: 'env_not_granted',
    });
  });

  it('in a deny rule, assignments narrow the rule to processes that set them', () => {
    const policy = { allow: ['process'], deny: ['process(GIT_SSH_COMMAND=* git)'] };
    expect(decide(policy, processRequest({ executable: { requested: 'git', resolved: '/usr/bin/git', lookup: 'path_search' } }))).toMatchObject({ decision: 'allow' });
    const withSsh = processRequest({ executable: { requested: 'git', resolved: '/usr/bin/git', lookup: 'path_search' }, env: { GIT_SSH_COMMAND: 'ssh -i k' } });
    expect(decide(policy, withSsh)).toMatchObject({ decision: 'deny', reason: 'rule' });
  });
});
