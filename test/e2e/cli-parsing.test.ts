import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { chmod } from 'node:fs/promises';
import path from 'node:path';
import { cliPath, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

const greeting = `version: 1
name: greet
inputs:
  who: { type: string, default: world }
policy:
  allow: [read]
steps:
  - id: hello
    tool: echo
    with: { value: "hello \${{ inputs.who }}" }
`;

async function workspace(): Promise<string> {
  const dir = await directories.make();
  await writeFiles(dir, { 'wf.yml': greeting });
  return dir;
}

describe.concurrent('command-line parsing', () => {
  it('takes repeatable flags before the workflow file', async () => {
    const dir = await workspace();
    const input = await runCli(['run', '-i', 'who=bob', 'wf.yml'], { cwd: dir });
    expect([input.exitCode, input.stderr]).toEqual([0, '']);
    expect(input.stdout).toContain('[hello] hello bob');
    const both = await runCli(['run', '--allow', 'read', '-i', 'who=ann', '--deny', 'write', 'wf.yml', '--output', 'plain'], { cwd: dir });
    expect([both.exitCode, both.stderr]).toEqual([0, '']);
    expect(both.stdout).toContain('[hello] hello ann');
    const planned = await runCli(['plan', '--allow', 'read', 'wf.yml'], { cwd: dir });
    expect(planned.exitCode).toBe(0);
  });

  it('never takes a missing argument from stdin when it is not a terminal', async () => {
    const dir = await directories.make();
    const tasks =
      'version: 1\nname: t\nsteps:\n  - id: top\n    tool: echo\n    with: { value: top-level }\ntasks:\n  build:\n    steps:\n      - id: b\n        tool: echo\n        with: { value: build-task }\n';
    await writeFiles(dir, { 't.yml': tasks });
    const piped = await runCli(['run', 't.yml', '--output', 'plain'], { cwd: dir, input: 'build\n' });
    expect([piped.exitCode, piped.stderr]).toEqual([0, '']);
    expect(piped.stdout).toContain('[top] top-level');
    expect(piped.stdout).not.toContain('build-task');
    const listed = await runCli(['list'], { cwd: dir, input: 't.yml\n' });
    expect(listed.exitCode).toBe(2);
  });

  it('answers rho help and rho help COMMAND like --help', async () => {
    const dir = await workspace();
    const top = await runCli(['help'], { cwd: dir });
    expect(top.exitCode).toBe(0);
    expect(top.stdout).toMatch(/COMMANDS[\s\S]*run\s+Run a workflow/);
    const run = await runCli(['help', 'run'], { cwd: dir });
    const flag = await runCli(['run', '--help'], { cwd: dir });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe(flag.stdout);
    const nested = await runCli(['help', 'hooks', 'test'], { cwd: dir });
    expect(nested.stdout).toContain('$ rho hooks test');
  });

  it('reports an unknown flag in one line with a did-you-mean, without the help', async () => {
    const dir = await workspace();
    const result = await runCli(['run', '--allwo', 'read', 'wf.yml'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('rho: unknown flag --allwo; did you mean --allow? (see rho help run)');
    expect(result.stdout).toBe('');
    const valued = await runCli(['plan', '--max-paralel=2', 'wf.yml'], { cwd: dir });
    expect([valued.exitCode, valued.stderr]).toEqual([2, 'rho: unknown flag --max-paralel; did you mean --max-parallel? (see rho help plan)']);
  });

  it('reports other usage errors in one line too', async () => {
    const dir = await workspace();
    const cases: [string[], string][] = [
      [['run'], `rho: no rho.yml or rho.yaml is in ${dir} or a directory above it; name a workflow file, or write one with rho init`],
      [['run', 'wf.yml', '-j', 'x'], 'rho: --max-parallel: Expected an integer but received: x (see rho help run)'],
      [['run', 'wf.yml', '--output', 'loud'], 'rho: Expected --output=loud to be one of: auto, fancy, plain, json (see rho help run)'],
      [['rnu', 'wf.yml'], 'rho: unknown command "rnu"; did you mean "run"? (see rho help)'],
      [['hooks', 'tset'], 'rho: unknown command "hooks tset"; did you mean "hooks test"? (see rho help hooks)'],
      [['run', 'wf.yml', '--timeout', 'soon'], 'rho: --timeout: "soon" is not a duration (use e.g. 500ms, 90s, 5m, 1h)'],
      [['invoke', 'echo', '--timeout', '5x'], 'rho: --timeout: "5x" is not a duration (use e.g. 500ms, 90s, 5m, 1h)'],
    ];
    const results = await Promise.all(cases.map(([argv]) => runCli(argv, { cwd: dir })));
    results.forEach((result, index) => {
      const [argv, message] = cases[index]!;
      expect([result.exitCode, result.stderr], argv.join(' ')).toEqual([2, message]);
    });
  });

  it('prints no empty default for repeatable flags in --help', async () => {
    const dir = await workspace();
    for (const command of ['run', 'plan', 'invoke', 'tools']) {
      const result = await runCli([command, '--help'], { cwd: dir });
      expect(result.stdout, command).not.toContain('[default: ]');
      expect(result.stdout, command).toMatch(/--allow=RULE\.\.\./);
    }
    expect((await runCli(['run', '--help'], { cwd: dir })).stdout).toContain('[default: auto]');
  });

  it('gives invoke --timeout a duration, as run has', async () => {
    const dir = await workspace();
    const args = JSON.stringify({ command: 'sleep', args: ['30'] });
    const result = await runCli(['invoke', 'exec', '--args', args, '--allow', 'process(sleep)', '--timeout', '300ms'], { cwd: dir });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('did not finish within 300ms');
  });
});

describe('shell completion', () => {
  /** Runs the generated bash completion for the words typed so far (the last one being completed). */
  async function complete(script: string, words: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<string[]> {
    const program = `${script}\nCOMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _rho; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const { stdout } = await execa('bash', ['--norc', '-c', program], options);
    return stdout.split('\n').filter(Boolean);
  }

  it('prints a bash script that completes commands, flags, their values and tool names', async () => {
    const dir = await workspace();
    const { exitCode, stdout: script } = await runCli(['autocomplete', 'bash'], { cwd: dir });
    expect(exitCode).toBe(0);
    expect(await complete(script, ['rho', 'va'])).toEqual(['validate']);
    expect(await complete(script, ['rho', 'hooks', 't'])).toEqual(['test']);
    expect(await complete(script, ['rho', 'run', '--al'])).toEqual(['--allow']);
    expect(await complete(script, ['rho', 'run', '-i', 'x=1', '--output', 'p'])).toEqual(['plain']);
    expect(await complete(script, ['rho', 'invoke', 'read_'])).toEqual(['read_file']);
    expect(await complete(script, ['rho', 'schema', ''])).toEqual(['workflow', 'events']);
    // A file argument and a flag's file value are left to the shell's file completion.
    expect(await complete(script, ['rho', 'run', 'w'])).toEqual([]);
    expect(await complete(script, ['rho', 'run', '--junit', ''])).toEqual([]);
  });

  it('completes the task names and aliases of the file typed or found, and the NAME=VALUE pairs --matrix takes', async () => {
    const dir = await directories.make();
    const task = (extra: string) => `    ${extra}\n    steps: [{ id: s, tool: echo, with: { value: x } }]`;
    await writeFiles(dir, {
      'rho.yml': `version: 1\nname: found\ntasks:\n  build:\n${task('aliases: [b]')}\n  bench:\n${task('description: timings')}\n  _helper:\n${task('description: private')}\n  test:\n    steps:\n      - id: t\n        tool: echo\n        matrix: { node: [20, 22], mode: [unit] }\n        with: { value: x }\n`,
      'ci/other.yml': `version: 1\nname: other\ntasks:\n  deploy:\n${task('aliases: [d]')}\n`,
      'bin/rho': `#!/bin/sh\nexec '${process.execPath}' '${cliPath}' "$@"\n`,
    });
    await chmod(path.join(dir, 'bin', 'rho'), 0o755);
    const { stdout: script } = await runCli(['autocomplete', 'bash'], { cwd: dir });
    const here = { cwd: dir, env: { PATH: `${path.join(dir, 'bin')}:${process.env.PATH}` } };
    expect(await complete(script, ['rho', 'run', ''], here)).toEqual(['build', 'b', 'bench', 'test']);
    expect(await complete(script, ['rho', 'run', '--output', 'plain', 'be'], here)).toEqual(['bench']);
    expect(await complete(script, ['rho', 'plan', 'ci/other.yml', ''], here)).toEqual(['deploy', 'd']);
    // Once the task is typed, what follows is its arguments or a file.
    expect(await complete(script, ['rho', 'run', 'build', ''], here)).toEqual([]);
    expect(await complete(script, ['rho', 'run', 'test', '--matrix', ''], here)).toEqual(['node=20', 'mode=unit', 'node=22']);
    expect(await complete(script, ['rho', 'run', 'rho.yml', 'test', '-j', '2', '--matrix', 'node'], here)).toEqual(['node=20', 'node=22']);
    // A file that is not a workflow offers nothing, and the shell completes file names.
    expect(await complete(script, ['rho', 'run', 'ci/missing.yml', ''], here)).toEqual([]);
  });

  it('prints zsh and fish scripts from the same commands', async () => {
    const dir = await workspace();
    const zsh = await runCli(['autocomplete', 'zsh'], { cwd: dir });
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain('complete -o default -F _rho rho');
    const fish = await runCli(['autocomplete', 'fish'], { cwd: dir });
    expect(fish.stdout).toContain("complete -c rho -n '__fish_seen_subcommand_from run' -l 'output' -x -a 'auto fancy plain json'");
    expect(fish.stdout).toContain("complete -c rho -f -n __fish_use_subcommand -a 'validate'");
  });
});

describe.concurrent('rho init', () => {
  it('creates a missing directory for the file and says so', async () => {
    const dir = await directories.make();
    const result = await runCli(['init', 'ci/flows/new.yml'], { cwd: dir });
    expect([result.exitCode, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toBe('Created the directory ci/flows.\nWrote ci/flows/new.yml. Run it with: rho run ci/flows/new.yml');
    expect((await runCli(['validate', 'ci/flows/new.yml'], { cwd: dir })).exitCode).toBe(0);
  });

  it('says clearly when the directory cannot be made', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'taken.yml': 'a file' });
    const result = await runCli(['init', 'taken.yml/new.yml'], { cwd: dir });
    expect([result.exitCode, result.stderr]).toEqual([2, 'rho: cannot create the directory taken.yml for taken.yml/new.yml: a file stands where a directory should be']);
  });
});
