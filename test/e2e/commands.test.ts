import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, writeFiles, temporaryDirectories } from '../support/cli.js';

const directories = temporaryDirectories();
const tempDir = () => directories.make();
afterAll(() => directories.removeAll());

async function commandIds(): Promise<string[]> {
  const entries = await readdir(path.join(repoRoot, 'commands'), { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && entry.name !== 'index.ts')
    .map((entry) => path.relative(path.join(repoRoot, 'commands'), path.join(entry.parentPath, entry.name)).replace(/\.ts$/, '').split(path.sep).join(' '));
}

// Every test has a directory of its own, so they run concurrently: most of their time is CLI start-up.
describe.concurrent('commands', () => {
  it('renders --help with usage and examples for every command', { timeout: 180_000 }, async () => {
    const dir = await tempDir();
    const ids = await commandIds();
    expect(ids).toEqual(expect.arrayContaining(['run', 'validate', 'plan', 'schema', 'init']));
    const results = await Promise.all(ids.map((id) => runCli([...id.split(' '), '--help'], { cwd: dir })));
    results.forEach((result, index) => {
      const id = ids[index]!;
      expect(result.exitCode, `${id} --help`).toBe(0);
      expect(result.stdout, id).toMatch(/USAGE/);
      // oclif reads `help` as a word of the help request, so `rho help --help` is `rho --help`.
      expect(result.stdout, id).toMatch(id === 'help' ? /COMMANDS/ : /EXAMPLES/);
      // Examples are templates (`<%= config.bin %> run …`): each is rendered, none printed raw.
      expect(result.stdout, id).not.toContain('<%');
      if (id !== 'help') expect(result.stdout, id).toMatch(/^ {2}\$ rho /m);
    });
  });

  it('prints the version', async () => {
    const dir = await tempDir();
    const { version } = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8'));
    const result = await runCli(['--version'], { cwd: dir });
    expect(result.stdout).toContain(`rho-cli/${version}`);
  });

  it('init writes a starter workflow that validates and runs, and never overwrites without --force', { timeout: 120_000 }, async () => {
    const dir = await tempDir();
    expect((await runCli(['init'], { cwd: dir })).exitCode).toBe(0);
    expect((await runCli(['validate', 'rho.yml'], { cwd: dir })).exitCode).toBe(0);
    const run = await runCli(['run', 'rho.yml'], { cwd: dir });
    expect(run.exitCode).toBe(0);
    expect(await readFile(path.join(dir, 'notes/hello.txt'), 'utf8')).toBe('hello from rho\n');
    const again = await runCli(['init'], { cwd: dir });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('rho.yml already exists; use --force');
    expect((await runCli(['init', '--force'], { cwd: dir })).exitCode).toBe(0);
  });

  it('schema prints the shipped workflow and event schemas', { timeout: 60_000 }, async () => {
    const dir = await tempDir();
    for (const [name, file] of [
      ['workflow', 'workflow.schema.json'],
      ['events', 'events.schema.json'],
    ] as const) {
      const result = await runCli(['schema', name], { cwd: dir });
      expect(JSON.parse(result.stdout)).toEqual(JSON.parse(await readFile(path.join(repoRoot, 'schemas', file), 'utf8')));
    }
  });

  it('plan explains decisions without running anything', { timeout: 120_000 }, async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: planned
policy:
  allow: ["write(out/**)"]
  ask: ["process(touch)"]
steps:
  - { id: write, tool: write_file, with: { path: out/a.txt, content: x, create_dirs: true } }
  - { id: touch, tool: exec, with: { command: touch, args: [made-by-plan] } }
  - { id: read, tool: read_file, with: { path: out/a.txt } }
`,
    });
    const result = await runCli(['plan', 'flow.yml'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('allow: write out/a.txt (new) (rule write(out/**))');
    expect(result.stdout).toMatch(/ASK \(approval\): run touch made-by-plan \(rule process\(touch\)\)/);
    expect(result.stdout).toMatch(/note: path "out\/a.txt" does not exist; an earlier step may create it/);
    const json = await runCli(['plan', 'flow.yml', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout).steps.map((s: { id: string }) => s.id)).toEqual(['write', 'touch', 'read']);
    const dry = await runCli(['run', 'flow.yml', '--dry-run'], { cwd: dir });
    expect(dry.stdout).toContain('nothing was run');
    await expect(readdir(path.join(dir, 'out'))).rejects.toThrow();
    await expect(readFile(path.join(dir, 'made-by-plan'))).rejects.toThrow();
  });

  it('invoke makes one call through the policy, with run’s exit codes', { timeout: 120_000 }, async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'notes.txt': 'one\ntwo\nthree\n' });
    const echo = await runCli(['invoke', 'echo', '--args', '{"value":"hi"}'], { cwd: dir });
    expect([echo.exitCode, echo.stdout]).toEqual([0, 'hi']);
    const denied = await runCli(['invoke', 'read_file', '--args', '{"path":"notes.txt"}'], { cwd: dir });
    expect(denied.exitCode).toBe(3);
    expect(denied.stderr).toContain("--allow 'read(notes.txt)'");
    const json = await runCli(['invoke', 'read_file', '--args', '{"path":"notes.txt","limit":2}', '--allow', 'read(notes.txt)', '--json'], { cwd: dir });
    expect(json.exitCode).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'success', data: { content: 'one\ntwo\n', next_offset: 3 } });
    const badArgs = await runCli(['invoke', 'read_file', '--args', '{"pth":1}'], { cwd: dir });
    expect(badArgs.exitCode).toBe(2);
    expect(badArgs.stderr).toContain('unknown field(s) pth');
    const badJson = await runCli(['invoke', 'echo', '--args', '{bad'], { cwd: dir });
    expect(badJson.exitCode).toBe(2);
    expect(badJson.stderr).toContain('--args is not valid JSON');
  });

  it('invoke feeds its --hooks file’s observers, as a run does', { timeout: 120_000 }, async () => {
    const dir = await tempDir();
    const observed = path.join(dir, 'observed.ndjson');
    const observer = [process.execPath, path.join(repoRoot, 'test/fixtures/hooks/append-envelope.mjs'), observed];
    await writeFiles(dir, { 'hooks.toml': `[[observer]]\ncommand = ${JSON.stringify(observer)}\nwrites = ["."]\n` });
    const echo = await runCli(['invoke', 'echo', '--args', '{"value":"hi"}', '--hooks', 'hooks.toml'], { cwd: dir });
    expect([echo.exitCode, echo.stdout]).toEqual([0, 'hi']);
    const kinds = (await readFile(observed, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).kind);
    expect(kinds).toContain('after_tool_use');
  });

  it('the embedding example runs against the built library', async () => {
    const result = await execa('node', [path.join(repoRoot, 'workflows/embed/embed.mjs')], { cwd: repoRoot, reject: false });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('read package.json: success, name = rho');
    expect(result.stdout).toContain('read README.md: denied (policy_denied)');
    expect(result.stdout).toContain('echo: success, data = {"hello":"world"}');
  });

  it('the library scheduling example runs three calls in two waves at maxParallel 2', async () => {
    const result = await execa('node', [path.join(repoRoot, 'workflows/embed/parallel.mjs')], { cwd: repoRoot, reject: false });
    expect(result.exitCode).toBe(0);
    // c starts only once a or b has given its slot back.
    expect(result.stdout).toMatch(/^start a, start b, end [ab], start c, /m);
    expect(result.stdout).toContain('results: a success, b success, c success');
  });
});
