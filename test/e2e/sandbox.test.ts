import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, jsonEvents, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';
import { isAlive, processesIn } from '../support/processes.js';

// The suite runs where bubblewrap works (CI installs it): every run here is confined unless a
// test takes bwrap away or turns the sandbox off.
const temp = temporaryDirectories('rho-sandbox-test-');
afterAll(() => temp.removeAll());

/** A workspace, and a HOME beside it (not inside it) holding a credential a step must not read. */
async function setUp(files: Record<string, string> | ((home: string) => Record<string, string>)): Promise<{ dir: string; home: string; env: Record<string, string> }> {
  const base = await temp.make();
  const dir = path.join(base, 'work');
  const home = path.join(base, 'home');
  await writeFiles(dir, typeof files === 'function' ? files(home) : files);
  await writeFiles(home, { '.ssh/id_ed25519': 'PRIVATE KEY\n', '.npmrc': '//registry.example.org/:_authToken=abc\n' });
  return { dir, home, env: { HOME: home } };
}

describe('confined processes (end to end)', () => {
  it('lets a process write only where write rules grant: writes elsewhere fail or are undone, and leave nothing', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: writes
policy:
  allow: ["process(sh)", "write(out/**)", "write(notes.txt)"]
steps:
  - id: granted
    tool: exec
    with: { command: sh, args: [-c, "echo built > out/app.js && echo more >> notes.txt && echo $TMPDIR > out/tmpdir && echo scratch > $TMPDIR/rho-sandbox-scratch && cat $TMPDIR/rho-sandbox-scratch"] }
  - id: beside
    tool: exec
    with: { command: sh, args: [-c, "echo x > src.js"] }
    continue_on_error: true
  - id: parent
    tool: exec
    with: { command: sh, args: [-c, "echo x > ../escaped"] }
    continue_on_error: true
  - id: system
    tool: exec
    with: { command: sh, args: [-c, "echo x > /usr/rho-sandbox-escaped"] }
    continue_on_error: true
  - id: new_file
    tool: exec
    with: { command: sh, args: [-c, "echo x > other.txt"] }
    continue_on_error: true
`,
      'notes.txt': 'first\n',
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(await readFile(path.join(dir, 'out/app.js'), 'utf8')).toBe('built\n');
    expect(await readFile(path.join(dir, 'notes.txt'), 'utf8')).toBe('first\nmore\n');
    expect(result.stdout).toMatch(/\[system\] .*Read-only file system/);
    // Beside a granted path the directory is writable, so a stray file is made, then removed and the step denied.
    expect(result.stdout).toContain('[beside] ⛔ denied');
    expect(result.stdout).toContain('sh wrote outside what its write rules grant, and was denied: created src.js (removed)');
    expect(result.stdout).toContain('created other.txt (removed)');
    expect(existsSync(path.join(dir, 'src.js'))).toBe(false);
    expect(existsSync('/usr/rho-sandbox-escaped')).toBe(false);
    // The workspace's parent is read-only like the rest of the host.
    expect(result.stdout).toMatch(/\[parent\] .*Read-only file system/);
    expect(existsSync(path.join(dir, '..', 'escaped'))).toBe(false);
    expect(existsSync(path.join(dir, 'other.txt'))).toBe(false);
    // The private TMPDIR is an in-memory directory of the step's own: writable, and gone with it.
    expect((await readFile(path.join(dir, 'out/tmpdir'), 'utf8')).trim()).toBe('/dev/shm');
    expect(result.stdout).toContain('[granted] scratch');
    expect(existsSync('/dev/shm/rho-sandbox-scratch')).toBe(false);
  });

  it('creates a granted tree that is missing for the process, and leaves it behind only if written into', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: trees
policy:
  allow: ["process(sh)", "write(man/**)", "write(build/out/**)", "write(.git/**)"]
steps:
  - id: look
    tool: exec
    with: { command: sh, args: [-c, "test -d man && test -d build/out && echo granted trees exist"] }
  - id: build
    tool: exec
    with: { command: sh, args: [-c, "echo built > build/out/app.js"] }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('[look] granted trees exist');
    expect(await readFile(path.join(dir, 'build/out/app.js'), 'utf8')).toBe('built\n');
    // No step wrote into man/ or .git/: the run leaves no empty directory (a stray .git/ would look like a repository).
    expect([existsSync(path.join(dir, 'man')), existsSync(path.join(dir, '.git'))]).toEqual([false, false]);
  });

  it('hides denied files and the home directory from cat, which --sandbox off would read', async () => {
    const { dir, env } = await setUp((home) => ({
      'flow.yml': `version: 1
name: secrets
policy:
  allow: ["process(cat)"]
  deny: ["read(.env)", "read(private/**)"]
steps:
  - id: dotenv
    tool: exec
    with: { command: cat, args: [.env] }
    continue_on_error: true
  - id: private
    tool: exec
    with: { command: cat, args: [private/key.pem] }
    continue_on_error: true
  - id: ssh
    tool: exec
    with: { command: cat, args: [${path.join(home, '.ssh/id_ed25519')}] }
    continue_on_error: true
  - id: npmrc
    tool: exec
    with: { command: cat, args: [${path.join(home, '.npmrc')}] }
    continue_on_error: true
  - id: public
    tool: exec
    with: { command: cat, args: [README] }
`,
      '.env': 'DB_PASSWORD=hunter2\n',
      'private/key.pem': 'PEM\n',
      README: 'hello\n',
    }));
    const confined = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env });
    const finished = jsonEvents(confined.stdout).filter((event) => event.type === 'step_finished');
    const status = Object.fromEntries(finished.map((event) => [event.stepId, event.status]));
    expect(status).toEqual({ dotenv: 'failure', private: 'failure', ssh: 'failure', npmrc: 'failure', public: 'success' });
    for (const secret of ['hunter2', 'PEM', 'PRIVATE KEY', '_authToken']) expect(confined.stdout).not.toContain(secret);
    expect(confined.stdout).toContain('hello');

    const unconfined = await runCli(['run', 'flow.yml', '--output', 'json', '--sandbox', 'off'], { cwd: dir, env });
    for (const secret of ['hunter2', 'PEM', 'PRIVATE KEY', '_authToken']) expect(unconfined.stdout).toContain(secret);
  });

  it('leaves nothing running after the step: a setsid daemon dies with it', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: daemon
policy:
  allow: ["process(sh)"]
steps:
  - id: daemonize
    tool: exec
    with: { command: sh, args: [-c, "setsid sleep 300 > /dev/null 2>&1 < /dev/null & echo started"] }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('[daemonize] started');
    await expect.poll(() => processesIn(dir).filter(isAlive), { timeout: 2000 }).toEqual([]);
  });

  it('kills a step’s whole tree when rho itself is killed with SIGKILL', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: orphan
policy:
  allow: ["process(sh)"]
steps:
  - id: forever
    tool: exec
    with: { command: sh, args: [-c, "setsid sleep 300 > /dev/null 2>&1 < /dev/null & echo up; sleep 300"] }
    timeout: 5m
`,
    });
    const run = execa('node', [cliPath, 'run', 'flow.yml', '--output', 'plain'], { cwd: dir, env: { CI: 'true', ...env }, reject: false, stdin: 'ignore' });
    await new Promise<void>((resolve) => {
      run.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('[forever] up')) resolve();
      });
    });
    const tree = processesIn(dir).filter((pid) => pid !== run.pid);
    expect(tree.length).toBeGreaterThanOrEqual(2);
    run.kill('SIGKILL');
    await run;
    await expect.poll(() => tree.filter(isAlive), { timeout: 3000 }).toEqual([]);
  });

  it('runs npm ci and npm test in a scratch project with the rules docs/confinement.md shows', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: npm
policy:
  # npm's cache under the home, granted by name.
  caches: [npm]
  allow: ["process(npm)", "write(node_modules/**)"]
steps:
  - id: install
    tool: exec
    with: { command: npm, args: [ci, --no-audit, --no-fund] }
    timeout: 2m
  - id: test
    tool: exec
    with: { command: npm, args: [test] }
    timeout: 2m
`,
      'package.json': JSON.stringify({ name: 'scratch', version: '1.0.0', scripts: { test: 'node test.js' }, dependencies: { greet: 'file:./greet' } }),
      'test.js': "const greet = require('greet'); if (greet('npm') !== 'hello npm') process.exit(1); console.log('tests passed');\n",
      'greet/package.json': JSON.stringify({ name: 'greet', version: '1.0.0', main: 'index.js' }),
      'greet/index.js': 'module.exports = (who) => `hello ${who}`;\n',
    });
    // The lock file as npm itself writes it, made unconfined before the run.
    await execa('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', '--offline'], {
      cwd: dir,
      env: { ...env, npm_config_cache: path.join(dir, '../lock-cache') },
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env, timeoutMs: 120_000 });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('[test] tests passed');
    expect(existsSync(path.join(dir, 'node_modules/greet'))).toBe(true);
  });

  it('keeps a writer and a later reader in order under -j 4 while steps that write nothing overlap', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: order
max_parallel: 4
policy:
  allow: ["process(sh)", "write(node_modules/**)", "write(dist/**)"]
steps:
  - id: install
    tool: exec
    with: { command: sh, args: [-c, "sleep 0.5 && mkdir -p node_modules/dep && echo ok > node_modules/dep/index"] }
  - id: lint_a
    tool: exec
    with: { command: sh, args: [-c, "sleep 0.5"] }
    writes: []
    resources: { shared: ["src/**"] }
  - id: lint_b
    tool: exec
    with: { command: sh, args: [-c, "sleep 0.5"] }
    writes: []
    resources: { shared: ["src/**"] }
  - id: build
    tool: exec
    with: { command: sh, args: [-c, "cat node_modules/dep/index > dist/out"] }
    writes: [dist/**]
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(await readFile(path.join(dir, 'dist/out'), 'utf8')).toBe('ok\n');
    const seq = (type: string, stepId: string) => jsonEvents(result.stdout).findIndex((event) => event.type === type && event.stepId === stepId);
    expect(seq('step_started', 'build')).toBeGreaterThan(seq('step_finished', 'install'));
    expect(seq('step_started', 'lint_b')).toBeLessThan(seq('step_finished', 'lint_a'));

    const plan = await runCli(['plan', 'flow.yml'], { cwd: dir, env });
    expect(plan.stdout).toContain('waits for: install (conflict on directory tree)');
    expect(plan.stdout).toContain(`writes: ${path.join(dir, 'dist')}/** (and its private TMPDIR)`);
  });

  it('confines hook programs: read-only but for their writes, home hidden, no network', async () => {
    const { dir, home, env } = await setUp({
      'flow.yml': `version: 1
name: hooked
hooks:
  observer:
    - name: probe
      command: [sh, -c, "echo x > escaped; cat $HOME/.ssh/id_ed25519 > hook-out/key; grep -c : /proc/net/dev > hook-out/interfaces; echo ok > hook-out/ran"]
      events: [run_completed]
      writes: [hook-out]
steps:
  - id: hello
    tool: echo
    with: { value: hi }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(await readFile(path.join(dir, 'hook-out/ran'), 'utf8')).toBe('ok\n');
    expect(existsSync(path.join(dir, 'escaped'))).toBe(false);
    expect(await readFile(path.join(dir, 'hook-out/key'), 'utf8')).toBe('');
    expect(await readFile(path.join(home, '.ssh/id_ed25519'), 'utf8')).toBe('PRIVATE KEY\n');
    // Its own network namespace: loopback only.
    expect(await readFile(path.join(dir, 'hook-out/interfaces'), 'utf8')).toBe('1\n');
  });

  it('gives a process no network without a network rule, and the host network with an unrestricted one', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: network
policy:
  allow: ["process(sh)"]
steps:
  - id: interfaces
    tool: exec
    with: { command: sh, args: [-c, "grep -c : /proc/net/dev"] }
`,
    });
    const interfaces = async (...flags: string[]) => {
      const result = await runCli(['run', 'flow.yml', '--output', 'json', ...flags], { cwd: dir, env });
      const finished = jsonEvents(result.stdout).find((event) => event.type === 'step_finished');
      expect(finished, result.stdout + result.stderr).toMatchObject({ status: 'success' });
      return Number(jsonEvents(result.stdout).find((event) => event.type === 'step_progress')?.message);
    };
    const host = Number((await execa('grep', ['-c', ':', '/proc/net/dev'])).stdout);
    expect(await interfaces()).toBe(1);
    expect(await interfaces('--allow', 'network')).toBe(host);
    // Host-scoped rules reach hosts only through rho's proxy: without one, nothing.
    expect(await interfaces('--allow', 'network(registry.npmjs.org)')).toBe(1);
  });

  it('refuses a writes: entry the policy does not grant', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: widen
policy:
  allow: ["process(sh)", "write(dist/**)"]
steps:
  - id: widen
    tool: exec
    with: { command: sh, args: [-c, "true"] }
    writes: [src/**]
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toContain(`writes: "src/**" is not inside what the policy's write rules grant to processes (${path.join(dir, 'dist')})`);
  });
});

describe('sandbox control (end to end)', () => {
  const flow = `version: 1
name: control
policy:
  allow: ["process(touch)", "write(made)"]
steps:
  - id: touch
    tool: exec
    with: { command: touch, args: [made] }
`;
  /** RHO_BWRAP naming no program: a run with it has no bubblewrap to confine with. */
  const noBwrap = { RHO_BWRAP: '/nonexistent/bwrap' };
  const noBwrapReason = 'RHO_BWRAP=/nonexistent/bwrap is not the absolute path of an executable file';

  it('--sandbox required without bwrap exits 2 before any step runs; so does policy.sandbox: required', async () => {
    const { dir, env } = await setUp({ 'flow.yml': flow, 'required.yml': flow.replace('policy:\n', 'policy:\n  sandbox: required\n') });
    for (const args of [
      ['run', 'flow.yml', '--sandbox', 'required'],
      ['run', 'required.yml'],
    ]) {
      const result = await runCli(args, { cwd: dir, env: { ...env, ...noBwrap } });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(`rho: sandbox: required, but processes run unconfined: ${noBwrapReason}; set RHO_BWRAP to the absolute path of bubblewrap`);
      expect(result.stdout).toBe('');
      expect(existsSync(path.join(dir, 'made'))).toBe(false);
    }
  });

  it('auto without bwrap runs unconfined and says why in run_started and the summary; off says so too', async () => {
    const { dir, env } = await setUp({ 'flow.yml': flow });
    const auto = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env: { ...env, ...noBwrap } });
    expect(auto.exitCode, auto.stderr).toBe(0);
    expect(jsonEvents(auto.stdout)[0]).toMatchObject({
      type: 'run_started',
      sandbox: { confined: false, mode: 'auto', reason: noBwrapReason, fix: expect.stringContaining('RHO_BWRAP') },
    });
    const plain = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env: { ...env, ...noBwrap } });
    const line = `Sandbox auto: processes run unconfined: ${noBwrapReason}`;
    expect(plain.stdout.split('\n').filter((text) => text.startsWith(line))).toHaveLength(2);

    const off = await runCli(['run', 'flow.yml', '--output', 'plain', '--sandbox', 'off'], { cwd: dir, env });
    expect(off.stdout).toMatch(/^Sandbox off: processes run unconfined: the sandbox is off \(sandbox: off\)/m);
    const plan = await runCli(['plan', 'flow.yml', '--sandbox', 'off'], { cwd: dir, env });
    expect(plan.stdout).toContain('Sandbox off: processes run unconfined');
    expect(plan.stdout).toContain('  confined: no (see Sandbox above)');

    const confined = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env });
    expect(jsonEvents(confined.stdout)[0]).toMatchObject({
      type: 'run_started',
      sandbox: { confined: true, mode: 'auto', backend: 'bubblewrap', location: expect.stringMatching(/^\/(usr\/)?(local\/)?s?bin\/bwrap$/) },
    });
  });

  it('never runs a bwrap found on PATH: one planted in node_modules/.bin, first on PATH as npm run puts it, is ignored', async () => {
    const { dir, env } = await setUp({ 'flow.yml': flow });
    const marker = path.join(path.dirname(dir), 'planted-bwrap-ran');
    const bin = path.join(dir, 'node_modules', '.bin');
    // What a step allowed to write node_modules could plant: the real bwrap, with the host's whole file system writable.
    await writeFiles(bin, { bwrap: `#!/bin/sh\ntouch '${marker}'\nexec /usr/bin/bwrap --bind / / "$@"\n` });
    await chmod(path.join(bin, 'bwrap'), 0o755);
    const planted = { ...env, PATH: `${bin}:${process.env.PATH}` };
    const plan = await runCli(['plan', 'flow.yml'], { cwd: dir, env: planted });
    expect(plan.stdout).toMatch(/^Sandbox auto: process steps run confined by bubblewrap \(\/(usr\/)?(local\/)?s?bin\/bwrap\)$/m);
    const result = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env: planted });
    expect(jsonEvents(result.stdout)[0]).toMatchObject({ type: 'run_started', sandbox: { confined: true, location: expect.not.stringContaining(dir) } });
    expect(existsSync(marker)).toBe(false);
  });

  it('does not trust a bwrap that does not confine, nor one RHO_BWRAP places where steps write', async () => {
    const { dir, env } = await setUp({ 'flow.yml': flow });
    const bin = path.join(path.dirname(dir), 'fake-bin');
    // Runs the command as it is, outside any namespace.
    await writeFiles(bin, { bwrap: '#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n' });
    await chmod(path.join(bin, 'bwrap'), 0o755);
    const fake = { ...env, RHO_BWRAP: path.join(bin, 'bwrap') };
    const result = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env: fake });
    expect(jsonEvents(result.stdout)[0]).toMatchObject({
      type: 'run_started',
      sandbox: { confined: false, reason: `${path.join(bin, 'bwrap')} did not start a confined process` },
    });
    const required = await runCli(['run', 'flow.yml', '--sandbox', 'required'], { cwd: dir, env: fake });
    expect(required.exitCode).toBe(2);

    // The real bubblewrap, copied into the workspace: a step could replace it, so it confines nothing.
    await mkdir(path.join(dir, 'tools'));
    await execa('cp', ['/usr/bin/bwrap', path.join(dir, 'tools', 'bwrap')]);
    const inside = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env: { ...env, RHO_BWRAP: path.join(dir, 'tools', 'bwrap') } });
    expect(jsonEvents(inside.stdout)[0]).toMatchObject({
      type: 'run_started',
      sandbox: { confined: false, reason: expect.stringContaining('lies where steps can write (the workspace or a granted root)') },
    });
  });

  it('refuses to run under auto when bubblewrap does not answer its probe in time, rather than run unconfined', async () => {
    const { dir, env } = await setUp({ 'flow.yml': flow });
    const bin = path.join(path.dirname(dir), 'silent-bin');
    // A bwrap that never answers, as one on a machine too busy to start it within the probe's 5 s would.
    await writeFiles(bin, { bwrap: '#!/bin/sh\nexec sleep 30\n' });
    await chmod(path.join(bin, 'bwrap'), 0o755);
    const program = path.join(bin, 'bwrap');
    const result = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env: { ...env, RHO_BWRAP: program } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`rho: sandbox: auto, but ${program} did not answer its probe within 5 s, so whether it confines here is unknown; nothing was run`);
    expect(result.stdout).toBe('');
    expect(existsSync(path.join(dir, 'made'))).toBe(false);
  });
});
