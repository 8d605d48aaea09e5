import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const temp = temporaryDirectories('rho-env-attack-test-');
afterAll(() => temp.removeAll());

/** The attacks of issue 21, each under the narrow rule it tried to widen: every one is refused before anything runs. */
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
});
