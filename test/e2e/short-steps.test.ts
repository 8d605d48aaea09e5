import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

// The short step forms through the built CLI: a command line as a step, shell:, a task that is
// a list, ids derived from programs, and defaults: { sequential: true } for every task.
const directories = temporaryDirectories('rho-short-steps-');
afterAll(() => directories.removeAll());

const events = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; stepId?: string });

describe.concurrent('short steps (end to end)', () => {
  it('runs string steps, exec: and shell: steps with derived ids, in plain output and events', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'tasks.yml': `version: 1
name: short
policy: { allow: ["process(node)", shell, "write(out/**)"] }
tasks:
  hello:
    inputs:
      args: { type: array, default: [one, two words] }
    steps:
      - node -e 'console.log(process.argv.slice(1).join("|"))' "a b" c\\ d
      - exec: node -e 'console.log(process.argv.slice(1).join("|"))' \${{ inputs.args }} v\${{ rho.os }}
        name: spliced
      - { id: node, exec: node -e 'console.log("explicit")' }
      - shell: mkdir -p out && echo "$GREETING" > out/greeting.txt
        env: { GREETING: hi there }
      - shell: cat out/greeting.txt
`,
    });
    const plain = await runCli(['run', 'tasks.yml', 'hello', '--output', 'plain'], { cwd: dir });
    expect(plain.exitCode, plain.stdout + plain.stderr).toBe(0);
    expect(plain.stdout).toContain('[node-2] a b|c d');
    expect(plain.stdout).toContain(`[node-3] one|two words|v${process.platform}`);
    expect(plain.stdout).toContain('[node] explicit');
    expect(plain.stdout).toContain('[shell-2] hi there');
    expect(plain.stdout).toMatch(/✔ +node-3 +success .*spliced/);
    expect(await readFile(path.join(dir, 'out', 'greeting.txt'), 'utf8')).toBe('hi there\n');

    const json = await runCli(['run', 'tasks.yml', 'hello', '--output', 'json', '--', 'x'], { cwd: dir });
    expect(json.exitCode, json.stderr).toBe(0);
    const started = events(json.stdout).filter((event) => event.type === 'step_started');
    expect(started.map((event) => event.stepId)).toEqual(['node-2', 'node-3', 'node', 'shell', 'shell-2']);

    const plan = await runCli(['plan', 'tasks.yml', 'hello'], { cwd: dir });
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/^node-2 \(exec\)/m);
    expect(plan.stdout).toMatch(/^shell-2 \(shell\)/m);
  });

  it('refuses a command line that needs a shell, at the operator, and a short step with tool:', async () => {
    const dir = await directories.make();
    const text = `version: 1
name: bad
policy: { allow: ["process(ls)"] }
tasks:
  list:
    - ls | wc -l
    - exec: echo $HOME
    - { exec: ls, tool: exec }
`;
    await writeFiles(dir, { 'bad.yml': text });
    const result = await runCli(['validate', 'bad.yml'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    const problems = result.stderr.trim().split('\n');
    expect(problems[0]).toMatch(/^bad\.yml:6:10: a pipe \| needs a shell: .*write the step as shell: …/);
    expect(problems[1]).toMatch(/^bad\.yml:7:18: \$ \(an expansion; rho’s own are \$\{\{ … \}\}\) needs a shell/);
    expect(problems[2]).toMatch(/^bad\.yml:8:19: .*exec: is a step of its own .*drop tool:/);
    expect(problems).toHaveLength(3);
    expect(text.split('\n')[5]!.slice(9)).toMatch(/^\|/);
  });

  it('runs every task in order at -j 4 under defaults: { sequential: true }, unless a task says otherwise', async () => {
    const dir = await directories.make();
    const sleep = (name: string) => `      - node -e 'setTimeout(() => {}, 300)' ${name}`;
    await writeFiles(dir, {
      'seq.yml': `version: 1
name: seq
defaults: { sequential: true }
policy: { allow: ["process(node)"] }
tasks:
  chain:
${['install', 'build', 'test'].map(sleep).join('\n')}
  fan:
    sequential: false
    steps:
${['lint', 'format', 'types'].map(sleep).join('\n')}
`,
    });
    const order = async (task: string) => {
      const result = await runCli(['run', 'seq.yml', task, '-j', '4', '--output', 'json'], { cwd: dir });
      expect(result.exitCode, result.stderr).toBe(0);
      return events(result.stdout)
        .filter((event) => event.type === 'step_started' || event.type === 'step_finished')
        .map((event) => `${event.type === 'step_started' ? 'start' : 'end'} ${event.stepId}`);
    };
    expect(await order('chain')).toEqual(['start node', 'end node', 'start node-2', 'end node-2', 'start node-3', 'end node-3']);
    expect((await order('fan')).slice(0, 3)).toEqual(['start node', 'start node-2', 'start node-3']);
  });
});
