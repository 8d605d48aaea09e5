import { existsSync } from 'node:fs';
import { mkdir, readFile, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';
import { runCliEvents } from '../support/cli-events.js';
import { fakeHome, homeEnvironment } from '../support/fake-home.js';

// Confined runs against a home laid out as real installs lay it out (see fake-home.ts): the
// workflows name no home path, grant no whole workspace and never turn the sandbox off.
const temp = temporaryDirectories('rho-sandbox-homes-');
afterAll(() => temp.removeAll());

/** A workspace with these files, beside a fake home. */
async function setUp(files: Record<string, string>): Promise<{ dir: string; home: string; env: Record<string, string> }> {
  const base = await realpath(await temp.make());
  const dir = path.join(base, 'work');
  await writeFiles(dir, files);
  const home = await fakeHome(path.join(base, 'home'));
  return { dir, home, env: homeEnvironment(home) };
}

describe('toolchains and caches under the home (end to end, confined)', () => {
  it('runs a pyenv shim and a rustup proxy from bare-name rules, writes their caches by name, and keeps credentials hidden', async () => {
    const { dir, home, env } = await setUp({
      'flow.yml': `version: 1
name: toolchains
policy:
  caches: [cargo, pip]
  allow: ["process(python3)", "process(cargo)", "write(target/**)"]
steps:
  - id: download
    tool: exec
    with: { command: python3, args: [-m, pip, download, requests] }
  - id: build
    tool: exec
    with: { command: cargo, args: [build] }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('[download] Python 3.12.1: -m pip download requests');
    expect(result.stdout).toContain('[build] cargo 1.80.0 (stable-x86_64-unknown-linux-gnu): build');
    expect(await readFile(path.join(dir, 'target/debug/app'), 'utf8')).toBe('binary\n');
    expect(await readFile(path.join(home, '.cargo/registry/cache/serde-1.0.crate'), 'utf8')).toBe('crate\n');
    expect(await readFile(path.join(home, '.cache/pip/http/requests'), 'utf8')).toBe('wheel\n');
    // The toolchain's credential file is in the readable tree, and hidden all the same.
    expect(result.stdout).toContain('[build] credentials: unreadable');
    expect(result.stdout).not.toContain('cargo-registry-token');

    const plan = await runCli(['plan', 'flow.yml'], { cwd: dir, env });
    expect(plan.stdout).toContain(`Home (~): ${home}`);
    expect(plan.stdout).toContain(`Toolchains (readable to confined processes): rustup (${home}/.cargo, ${home}/.rustup); pyenv (${home}/.pyenv)`);
    expect(plan.stdout).toContain(`caches: cargo (${home}/.cargo/registry, ${home}/.cargo/git); pip (${home}/.cache/pip)`);
    expect(plan.stdout).toContain('allow: run cargo build (rule process(cargo))');
  });

  it('runs a Go toolchain from ~/sdk and a tool from ~/go/bin, with the module and build caches granted as go', async () => {
    const { dir, home, env } = await setUp({
      'flow.yml': `version: 1
name: go
policy:
  caches: [go]
  allow: ["process(go)", "process(golangci-lint)", "write(bin/**)"]
steps:
  - go build -o bin/app ./...
  - golangci-lint run ./...
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('golangci-lint: run ./... (0 issues)');
    expect(await readFile(path.join(dir, 'bin/app'), 'utf8')).toBe('binary\n');
    expect(await readFile(path.join(home, 'go/pkg/mod/cache/download/entry'), 'utf8')).toBe('cached\n');
    expect(await readFile(path.join(home, '.cache/go-build/00/entry'), 'utf8')).toBe('cached\n');
    const plan = await runCli(['plan', 'flow.yml'], { cwd: dir, env });
    expect(plan.stdout).toContain(`go (${home}/go/bin, ${home}/sdk)`);
  });

  it('shares a cache between steps, so two that write only it run side by side; the workflow’s variable moves it', async () => {
    const { dir, home, env } = await setUp({
      'flow.yml': `version: 1
name: shared
max_parallel: 2
policy:
  caches: [npm]
  allow: ["process(sh)"]
steps:
  - id: one
    tool: exec
    with: { command: sh, args: [-c, 'echo one > "$HOME/.npm/one"'] }
  - id: two
    tool: exec
    with: { command: sh, args: [-c, 'echo two > "$HOME/.npm/two"'] }
`,
      'moved.yml': `version: 1
name: moved
env:
  npm_config_cache: .npm-cache
policy:
  caches: [npm]
  allow: ["process(npm_config_cache=.npm-cache sh)"]
steps:
  - id: write
    tool: exec
    with: { command: sh, args: [-c, 'echo moved > .npm-cache/entry'] }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect([await readFile(path.join(home, '.npm/one'), 'utf8'), await readFile(path.join(home, '.npm/two'), 'utf8')]).toEqual(['one\n', 'two\n']);
    const plan = await runCli(['plan', 'flow.yml'], { cwd: dir, env });
    expect(plan.stdout).toContain('wave 1: one, two');
    expect(plan.stdout).toContain(`resources: shared directory tree ./**, shared directory tree ${home}/.npm/**`);

    const moved = await runCli(['run', 'moved.yml', '--output', 'plain'], { cwd: dir, env });
    expect(moved.exitCode, moved.stdout + moved.stderr).toBe(0);
    expect(await readFile(path.join(dir, '.npm-cache/entry'), 'utf8')).toBe('moved\n');
    expect((await runCli(['plan', 'moved.yml'], { cwd: dir, env })).stdout).toContain(`caches: npm (${dir}/.npm-cache)`);
  });

  it('says which path the sandbox kept back and the grant that allows it: a cache by name, a write rule', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: hints
policy:
  allow: ["process(cargo)", "process(sh)", "write(target/**)"]
steps:
  - id: build
    tool: exec
    with: { command: cargo, args: [build] }
    continue_on_error: true
  - id: coverage
    tool: exec
    with: { command: sh, args: [-c, 'echo 100% > reports/coverage.txt'] }
    continue_on_error: true
`,
      'reports/.keep': '',
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /\[build\] ✖ failure .*confinement: ~\/\.cargo\/registry\/cache is in your home, which confined processes cannot see: grant it with policy caches: \[cargo\]/,
    );
    expect(result.stdout).toMatch(
      /\[coverage\] ✖ failure .*confinement: reports\/coverage\.txt is read-only to confined processes: grant it with --allow 'write\(reports\/\*\*\)'/,
    );
  });

  it('keeps a bare-name rule matching a program found through a shim in a granted root that nothing writes', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: granted-shims
policy:
  granted_roots: [~/.pyenv]
  allow: ["process(python3)", "read(~/.pyenv/**)", outside]
steps:
  - id: version
    tool: exec
    with: { command: python3, args: [--version] }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('[version] Python 3.12.1: --version');
  });
});

describe('home-relative paths (end to end)', () => {
  it('expands ~ in granted roots, rules and flags to this user’s home, and rho plan shows where', async () => {
    const { dir, home, env } = await setUp({
      'flow.yml': `version: 1
name: tilde
policy:
  granted_roots: [~/.config/tool]
  allow: ["process(sh)", "read(~/.config/tool/**)", outside]
steps:
  - id: settings
    tool: exec
    with: { command: sh, args: [-c, 'cat "$HOME/.config/tool/settings"; cat "$HOME/.config/tool/token" || echo token hidden'] }
`,
    });
    await writeFiles(home, { '.config/tool/settings': 'colour = blue\n', '.config/tool/token': 'secret-token\n' });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain', '--deny', 'read(~/.config/tool/token)'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('[settings] colour = blue');
    expect(result.stdout).toContain('[settings] token hidden');
    expect(result.stdout).not.toContain('secret-token');
    const plan = await runCli(['plan', 'flow.yml'], { cwd: dir, env });
    expect(plan.stdout).toContain(`Home (~): ${home}`);
    expect((await runCli(['validate', 'flow.yml'], { cwd: dir, env })).exitCode).toBe(0);
  });

  it('refuses a ~ that cannot be expanded at its place in the file, before anything runs', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: other-user
policy:
  granted_roots: [~bob/tools]
  allow: ["process(sh)"]
steps:
  - id: hello
    tool: exec
    with: { command: sh, args: [-c, 'echo ran > ran'] }
    writes: ["~/out/**"]
`,
    });
    const validated = await runCli(['validate', 'flow.yml'], { cwd: dir, env });
    expect(validated.exitCode).toBe(2);
    expect(validated.stderr).toContain(`flow.yml:4:19: granted root "~bob/tools": "~bob" names another user's home: only ~ (yours) is expanded`);
    const run = await runCli(['run', 'flow.yml'], { cwd: dir, env });
    expect(run.exitCode).toBe(2);
    expect(existsSync(path.join(dir, 'ran'))).toBe(false);
  });

  it('neither mounts nor creates a home that does not exist, and confines as the probe said', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: nobody
policy:
  allow: ["process(sh)"]
steps:
  - id: hello
    tool: exec
    with: { command: sh, args: [-c, 'echo hello from nowhere'] }
`,
    });
    const result = await runCliEvents(['run', 'flow.yml'], { cwd: dir, env: { ...env, HOME: '/nonexistent', XDG_CACHE_HOME: path.join(dir, '.cache') } });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.events[0]).toMatchObject({ type: 'run_started', sandbox: { confined: true } });
    expect(result.stdout).toContain('hello from nowhere');
    expect(existsSync('/nonexistent')).toBe(false);
  });
});

describe('symbolic links at confinement roots (end to end)', () => {
  const writeOut = `version: 1
name: out
policy:
  allow: [shell, "write(out/**)"]
steps:
  - shell: 'echo pwned > out/x'
`;

  it('refuses a writable root that is a link out of the workspace, as write_file does: nothing is written through it', async () => {
    const { dir, env } = await setUp({ 'flow.yml': writeOut });
    await mkdir(path.join(dir, '../victim'));
    await symlink('../victim', path.join(dir, 'out'));
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toContain(`writable root out resolves to ${path.join(dir, '../victim')} (through a symbolic link), outside the workspace and every granted root`);
    expect(existsSync(path.join(dir, '../victim/x'))).toBe(false);
    const plan = await runCli(['plan', 'flow.yml'], { cwd: dir, env });
    expect(plan.stdout).toContain(`REFUSED when it starts: writable root out resolves to ${path.join(dir, '../victim')}`);
  });

  it('never binds the real home over the hidden one through a link', async () => {
    const { dir, home, env } = await setUp({ 'flow.yml': writeOut.replace('echo pwned > out/x', 'cat out/.ssh/id_ed25519; echo pwned > out/x') });
    await symlink(path.relative(dir, home), path.join(dir, 'out'));
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).not.toContain('PRIVATE KEY');
    expect(existsSync(path.join(home, 'x'))).toBe(false);
  });

  it('creates no directory through a link an earlier step planted, and writes nothing there', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: planted
policy:
  allow: [shell, "write(out/**)"]
steps:
  - id: plant
    shell: 'mkdir -p out && ln -s ../../victim out/cache'
  - id: deep
    shell: 'echo pwned > out/cache/deep/x'
    writes: ["out/cache/deep/**"]
`,
    });
    await mkdir(path.join(dir, '../victim'));
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toContain(`[deep] ⛔ denied`);
    expect(result.stdout).toContain(`writable root out/cache/deep resolves to ${path.join(dir, '../victim/deep')}`);
    expect(existsSync(path.join(dir, '../victim/deep'))).toBe(false);
  });

  it('hides a directory a composed deny names from a confined process, when its name on disk is decomposed', async () => {
    const decomposed = 'cafe\u0301';
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: spelling
policy:
  allow: ["process(cat)"]
  deny: ["read(café/**)"]
steps:
  - id: read
    tool: exec
    with: { command: cat, args: [${decomposed}/secret] }
    continue_on_error: true
`,
      [`${decomposed}/secret`]: 'NFD SECRET\n',
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\[read\] ✖ failure/);
    expect(result.stdout).not.toContain('NFD SECRET');
  });
});
