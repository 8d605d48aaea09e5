import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';
import { runnerCommands } from '../support/actions-runner.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

const node = JSON.stringify(process.execPath);

/** Output a step's process prints to take over the runner: every vector at once. */
const attack = [
  "console.log('::error::injected at the start of a line');",
  "console.log('   ::set-output name=a::after white space');",
  "console.log('plain text\\r::add-mask::after a carriage return');",
  "console.log('text ##[set-output name=b]legacy form mid-line');",
  "console.log('::stop-commands::pwned');",
  "console.log('##[stop-commands]pwned-legacy');",
  "console.error('::warning::on stderr');",
  "console.error('last words ##[error]in the failure message');",
  'process.exit(3);',
].join(' ');

const flow = `version: 1
name: github
max_parallel: 2
policy:
  allow: [process]
steps:
  - id: hostile
    name: "Hostile ::error::title"
    tool: exec
    with: { command: ${node}, args: ["-e", ${JSON.stringify(attack)}] }
    continue_on_error: true
  - id: failing
    tool: exec
    with: { command: ${node}, args: ["-e", "console.error('::error::first line'); console.error('::endgroup::'); process.exit(4)"] }
`;

describe('rho run on GitHub Actions', () => {
  it('lets no byte of a step act as a workflow command; only its own groups and annotations do', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': flow, 'summary.md': '' });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir, env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md') } });
    expect(result.exitCode).toBe(1);
    // The runner reads stdout and stderr apart: each must be safe on its own.
    expect(runnerCommands(result.stderr)).toEqual([]);
    const commands = runnerCommands(result.stdout);
    expect(commands.map((command) => command.name)).toEqual(['group', 'endgroup', 'group', 'endgroup', 'error']);
    expect(commands[0]!.line).toBe('::group::Hostile ::error::title');
    expect(commands[4]!.line).toMatch(/^::error title=rho%3A step failing failure,file=flow.yml,line=\d+::/);
    // What the step printed is all there, each line with its step's prefix (rho's annotation holds it escaped).
    const lines = result.stdout.split(/\r\n|\r|\n/).filter((line) => line !== commands[4]!.line);
    for (const line of lines.filter((text) => /injected|white space|carriage|legacy|pwned|stderr|last words|first line/.test(text))) {
      expect(line).toMatch(/^(\[hostile\]|\[failing\]| {2}\[failing\]|First failure:) /);
    }
    expect(lines).toContain('[hostile] ::error::injected at the start of a line');
    expect(lines).toContain('[hostile] text ##[\\set-output name=b]legacy form mid-line');
    expect(lines).toContain('[hostile] ::add-mask::after a carriage return');
  });

  it('validates, lists and plans an untrusted workflow without letting its text act as a command', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'bad.yml': 'version: 1\nname: bad\n"##[set-output name=owned]yes": 1\nsteps:\n  - { id: a, tool: "::error::x", with: {} }\n',
      'plan.yml': 'version: 1\nname: plan\nsteps:\n  - { id: a, tool: exec, with: { command: node, args: ["##[add-mask]x"] } }\n',
      'tasks.yml':
        'version: 1\nname: tasks\ntasks:\n  build:\n    description: "##[set-output name=owned]yes"\n    steps:\n      - { id: a, tool: exec, with: { command: "true" } }\n',
    });
    const env = { GITHUB_ACTIONS: 'true' };
    const validated = await runCli(['validate', 'bad.yml'], { cwd: dir, env });
    expect(validated.exitCode).toBe(2);
    expect(validated.stderr).toContain('set-output');
    const listed = await runCli(['list', 'tasks.yml'], { cwd: dir, env });
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toContain('set-output name=owned');
    const planned = await runCli(['plan', 'plan.yml'], { cwd: dir, env });
    expect(planned.exitCode).toBe(0);
    expect(planned.stdout).toContain('add-mask');
    for (const output of [validated.stdout, validated.stderr, listed.stdout, listed.stderr, planned.stdout, planned.stderr]) expect(runnerCommands(output)).toEqual([]);
  });

  it('streams a long step inside its open group while it runs', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    const script = "console.log('first'); setTimeout(() => console.log('second'), 4000);";
    await writeFiles(dir, {
      'flow.yml': `version: 1\nname: live\npolicy:\n  allow: [process]\nsteps:\n  - { id: long, tool: exec, with: { command: ${node}, args: ["-e", ${JSON.stringify(script)}] } }\n`,
    });
    const child = execa('node', [cliPath, 'run', 'flow.yml'], { cwd: dir, env: { CI: 'true', GITHUB_ACTIONS: 'true' }, stdin: 'ignore', reject: false });
    let seen = '';
    const firstSeen = new Promise<string>((resolve) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('[long] first')) resolve(seen);
      });
    });
    const early = await firstSeen;
    // The group is open and the step's first line is out, while the step still runs.
    expect(early).toContain('::group::long');
    expect(early).not.toContain('second');
    expect(early).not.toContain('::endgroup::');
    const done = await child;
    expect(done.exitCode).toBe(0);
    expect(seen).toMatch(/::group::long\n\[long\] ▶ long \(exec\)\n\[long\] first\n\[long\] second\n\[long\] ✔ success .*\n::endgroup::/);
  });

  it('keeps a fast step in its own group after the slow one before it, lines of each together', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    const slow = "console.log('slow 1'); setTimeout(() => console.log('slow 2'), 1500);";
    await writeFiles(dir, {
      'flow.yml': `version: 1\nname: two\nmax_parallel: 2\npolicy:\n  allow: [process]\nsteps:\n  - { id: slow, tool: exec, with: { command: ${node}, args: ["-e", ${JSON.stringify(slow)}] } }\n  - { id: fast, tool: exec, with: { command: ${node}, args: ["-e", "console.log('fast 1')"] } }\n`,
    });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir, env: { GITHUB_ACTIONS: 'true' } });
    expect(result.exitCode).toBe(0);
    const groups = result.stdout.split('::endgroup::\n').slice(0, 2);
    expect(groups[0]).toMatch(/^rho: two \(2 steps\)\n::group::slow\n(\[slow\] .*\n)+$/);
    expect(groups[1]).toMatch(/^::group::fast\n(\[fast\] .*\n)+$/);
    expect(groups[1]).toContain('[fast] fast 1');
  });

  it('appends the summary table to $GITHUB_STEP_SUMMARY with one line per step', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': flow, 'summary.md': '# before\n' });
    await runCli(['run', 'flow.yml'], { cwd: dir, env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md') } });
    const summary = await readFile(path.join(dir, 'summary.md'), 'utf8');
    expect(summary.startsWith('# before\n### rho: github — exit 1')).toBe(true);
    expect(summary.split('\n').filter((line) => line.startsWith('| ✖ |'))).toHaveLength(2);
  });
});
