import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const temp = temporaryDirectories('rho-env-attack-test-');
afterAll(() => temp.removeAll());

/** Environment attacks, each under the narrow rule it tried to widen: every one is refused before anything runs. */
describe('environment variables cannot widen a narrow process rule (end to end)', () => {
  it('GIT_CONFIG_*, NODE_OPTIONS, BASH_ENV and a workflow env: are refused, and nothing they would run runs', async () => {
    const dir = await temp.make();
    const marker = (name: string) => path.join(dir, `pwned-${name}`);
    await writeFiles(dir, {
      'preload.cjs': `require('fs').writeFileSync(${JSON.stringify(marker('node'))}, 'x')\n`,
      'startup.sh': `touch ${marker('bash')}\n`,
      'flow.yml': `version: 1
name: attacks
policy:
  allow: ["process(git status)", "process(node -e)", "process(bash -c)"]
steps:
  - id: git_config
    tool: exec
    with:
      command: git
      args: [status]
      env: { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: core.fsmonitor, GIT_CONFIG_VALUE_0: "touch ${marker('git')}; echo" }
    continue_on_error: true
  - id: node_options
    tool: exec
    with: { command: node, args: [-e, "0"], env: { NODE_OPTIONS: "--require ./preload.cjs" } }
    continue_on_error: true
  - id: bash_env
    tool: exec
    with: { command: bash, args: [-c, "true"], env: { BASH_ENV: ./startup.sh } }
    continue_on_error: true
`,
      'everywhere.yml': `version: 1
name: everywhere
env: { NODE_OPTIONS: "--require ./preload.cjs" }
policy:
  allow: ["process(node -e)"]
steps:
  - id: plain_node
    tool: exec
    with: { command: node, args: [-e, "0"] }
`,
    });
    execFileSync('git', ['init', '-q', dir]);
    const attacks = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir });
    expect(attacks.exitCode, attacks.stdout + attacks.stderr).toBe(0);
    for (const [step, names] of [
      ['git_config', 'GIT_CONFIG_COUNT, GIT_CONFIG_KEY_0, GIT_CONFIG_VALUE_0'],
      ['node_options', 'NODE_OPTIONS'],
      ['bash_env', 'BASH_ENV'],
    ]) {
      expect(attacks.stdout + attacks.stderr).toMatch(new RegExp(`${step}.*denied by policy: it sets ${names} in the process environment`));
    }
    const everywhere = await runCli(['run', 'everywhere.yml', '--output', 'plain'], { cwd: dir });
    expect(everywhere.exitCode).toBe(3);
    expect(everywhere.stdout + everywhere.stderr).toContain("leave NODE_OPTIONS out of the step's env and the workflow's env:");
    for (const name of ['git', 'node', 'bash']) expect(existsSync(marker(name)), name).toBe(false);
  });

  it('a variable nobody listed is refused too: TAR_OPTIONS under process(tar tf a.tar) runs nothing', async () => {
    const dir = await temp.make();
    const marker = path.join(dir, 'pwned-tar');
    execFileSync('tar', ['cf', path.join(dir, 'a.tar'), '--files-from', '/dev/null']);
    const flow = (extra: string) => `version: 1
name: tar
policy:
  allow: ["process(tar tf a.tar)"]${extra}
steps:
  - id: list
    tool: exec
    with: { command: tar, args: [tf, a.tar], env: { TAR_OPTIONS: "--checkpoint=1 --checkpoint-action=exec=touch\\ ${marker}" } }
`;
    await writeFiles(dir, { 'flow.yml': flow(''), 'granted.yml': flow('\n  env: [TAR_OPTIONS]') });
    const refused = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir });
    expect(refused.exitCode).toBe(3);
    expect(refused.stdout + refused.stderr).toMatch(
      /it sets TAR_OPTIONS in the process environment, which the rule that matched \(process\(tar tf a\.tar\)\) does not grant \(TAR_OPTIONS can change what the program executes\)/,
    );
    // policy.env grants only variables that change nothing about what runs.
    const granted = await runCli(['validate', 'granted.yml'], { cwd: dir });
    expect(granted.exitCode).toBe(2);
    expect(granted.stderr).toMatch(/granted\.yml:5:\d+: TAR_OPTIONS changes what a program runs; grant it in the rule of the program that needs it/);
    expect(existsSync(marker)).toBe(false);
  });

  it('a step may set a harmless variable, or one policy.env grants, without naming it in every rule', async () => {
    const dir = await temp.make();
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: granted
env: { NODE_ENV: production, APP_GREETING: hello, DATABASE_URL: "postgres://db.internal/main" }
policy:
  env: [DATABASE_URL, APP_*]
  allow: ["process(node -e)"]
steps:
  - exec: node -e "console.log(process.env.NODE_ENV, process.env.APP_GREETING, process.env.DATABASE_URL)"
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('production hello postgres://db.internal/main');
  });

  it('a process inherits no host variable off the allowlist: MYSQL_PWD, DB_PW, LDAP_BIND_PW, KUBE_CONFIG_DATA, ID_RSA stay behind', async () => {
    const dir = await temp.make();
    const leaked = {
      MYSQL_PWD: 'canary-mysql-pwd',
      DB_PW: 'canary-db-pw',
      LDAP_BIND_PW: 'canary-ldap',
      KUBE_CONFIG_DATA: 'canary-kube',
      ID_RSA: 'canary-rsa',
      SOME_SETTING: 'canary-setting',
    };
    const flow = (mode: string) => `version: 1
name: inherit
policy:
  allow: [process]${mode}
steps:
  - exec: node -e "console.log(JSON.stringify(process.env).length > 0, ${Object.keys(leaked)
    .map((name) => `process.env.${name}`)
    .join(', ')})"
`;
    await writeFiles(dir, { 'default.yml': flow(''), 'all.yml': flow('\n  process_env: inherit_all') });
    const byDefault = await runCli(['run', 'default.yml', '--output', 'plain'], { cwd: dir, env: leaked });
    expect(byDefault.exitCode, byDefault.stderr).toBe(0);
    for (const value of Object.values(leaked)) expect(byDefault.stdout).not.toContain(value);
    expect(byDefault.stdout).toMatch(/\[node\] true( undefined){6}$/m);
    // inherit_all passes every host variable but those whose names look like credentials.
    const everything = await runCli(['run', 'all.yml', '--output', 'plain'], { cwd: dir, env: leaked });
    expect(everything.stdout).toContain('canary-setting');
    expect(everything.stdout).not.toContain('canary-mysql-pwd');
  });

  it('the npm recipe of docs/policy.md: a workflow env: npm_config_cache that npm’s rule grants does not have to be named in process(node -e)', async () => {
    const dir = await temp.make();
    const flow = (allow: string) => `version: 1
name: npm-cache
env:
  npm_config_cache: .npm-cache
policy:
  allow: [${allow}, "process(node -e)", "write(.npm-cache/**)"]
steps:
  - id: npm
    exec: npm config get cache
  - id: node
    needs: [npm]
    exec: node -e "console.log('node sees', process.env.npm_config_cache)"
`;
    await writeFiles(dir, { 'recipe.yml': flow('"process(npm_config_cache=.npm-cache npm)"'), 'bare.yml': flow('"process(npm)"') });
    const recipe = await runCli(['run', 'recipe.yml', '--output', 'plain'], { cwd: dir });
    expect(recipe.exitCode, recipe.stdout + recipe.stderr).toBe(0);
    expect(recipe.stdout).toContain(path.join(dir, '.npm-cache'));
    expect(recipe.stdout).toContain('node sees .npm-cache');
    // Without npm's rule granting it, neither npm nor node may carry it, and the denial says where it belongs.
    const bare = await runCli(['run', 'bare.yml', '--output', 'plain'], { cwd: dir });
    expect(bare.exitCode).toBe(3);
    expect(bare.stdout + bare.stderr).toContain('it sets npm_config_cache in the process environment, which the rule that matched (process(npm)) does not grant');
  });
});
