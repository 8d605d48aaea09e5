import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const temp = temporaryDirectories('rho-injection-test-');
afterAll(() => temp.removeAll());

describe('template injection through interpreters and fetched text (end to end)', () => {
  it('refuses untrusted text as the code of node -e, sh -c and python3 -c, before anything runs', async () => {
    const dir = await temp.make();
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: interpreters
inputs:
  t: { untrusted: true, default: "x" }
policy:
  allow: [process]
steps:
  - touch ran-first
  - exec: node -e "\${{ inputs.t }}"
  - exec: sh -c "\${{ inputs.t }}"
  - exec: python3 -c "\${{ inputs.t }}"
  # Data after the code is fine.
  - exec: sh -c 'printf %s "$1"' sh "\${{ inputs.t }}"
`,
    });
    const validate = await runCli(['validate', 'flow.yml'], { cwd: dir });
    expect(validate.exitCode).toBe(2);
    const problems = validate.stderr.split('\n').filter((line) => line.includes('would run text from outside the workflow'));
    expect(problems).toEqual([
      expect.stringMatching(/^flow\.yml:9:\d+: exec args\.1 .*it is code node runs \(-e\)/),
      expect.stringMatching(/^flow\.yml:10:\d+: exec args\.1 .*it is the code sh runs \(-c\)/),
      expect.stringMatching(/^flow\.yml:11:\d+: exec args\.1 .*it is code python3 runs \(-c\)/),
    ]);
    const run = await runCli(['run', 'flow.yml', '-i', 't=console.log(1)'], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(existsSync(path.join(dir, 'ran-first'))).toBe(false);
  });

  it('treats what a process with network access printed as untrusted, like a result of http_request', async () => {
    const dir = await temp.make();
    const flow = (rules: string) => `version: 1
name: fetched
policy:
  allow: ["process(node)", shell${rules}]
steps:
  - { id: fetch, exec: "node -p 40+2" }
  - { id: show, shell: 'echo \${{ steps.fetch.output }}' }
`;
    await writeFiles(dir, { 'networked.yml': flow(', "network(127.0.0.1:9)"'), 'offline.yml': flow('') });
    const networked = await runCli(['validate', 'networked.yml'], { cwd: dir });
    expect(networked.exitCode).toBe(2);
    expect(networked.stderr).toMatch(
      /networked\.yml:7:\d+: shell script would run text from outside the workflow \(steps\.fetch is what a process printed, and processes can reach the network/,
    );
    expect((await runCli(['validate', 'offline.yml'], { cwd: dir })).exitCode).toBe(0);
    // A network rule given on the command line counts as well.
    const flagged = await runCli(['run', 'offline.yml', '--allow', 'network(127.0.0.1:9)'], { cwd: dir });
    expect(flagged.exitCode).toBe(2);
    expect(flagged.stderr).toContain('steps.fetch is what a process printed');
  });
});
