import { access, cp, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Header } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonEvents, repoRoot, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';
import { startTurboCacheServer, type TurboCacheServer } from '../support/turbo-cache-server.js';

const directories = temporaryDirectories();
const token = 'cache-token-for-tests';
const team = 'rho-tests';
let server: TurboCacheServer;

// The server takes a few seconds to start on a busy machine.
beforeAll(async () => {
  server = await startTurboCacheServer(path.join(await directories.make(), 'store'), token);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await directories.removeAll();
});

/** No rule names rho's state: a second run must not need one. The cache is a network request like any other. */
const flow = `version: 1
name: shared
policy:
  allow: ["read(src/**)", "read(dist/**)", "write(dist/**)", "write(*.log)", "shell", "network(127.0.0.1)"]
steps:
  - id: build
    tool: shell
    with: { script: "mkdir -p dist && cat src/*.txt > dist/out.txt && echo ran >> runs.log && echo built it" }
    sources: ["src/**"]
    generates: ["dist/**"]
`;

/** A clone of the project in a directory of its own, with a state home of its own: another machine. */
async function clone(source = 'a\n'): Promise<{ dir: string; env: Record<string, string> }> {
  const base = await directories.make();
  const dir = path.join(base, 'work');
  await writeFiles(dir, { 'flow.yml': flow, 'src/a.txt': source });
  return { dir, env: { XDG_STATE_HOME: path.join(base, 'state'), TURBO_API: server.url, TURBO_TOKEN: token, TURBO_TEAM: team } };
}

function finishedEvent(stdout: string, stepId = 'build'): { status: string; source?: string; reason?: string } {
  const event = jsonEvents(stdout).find((candidate) => candidate.type === 'step_finished' && candidate['stepId'] === stepId);
  return {
    status: String(event?.['status']),
    ...(event?.['source'] !== undefined && { source: String(event['source']) }),
    ...(event?.['reason'] !== undefined && { reason: String(event['reason']) }),
  };
}

const buildEvent = (stdout: string) => finishedEvent(stdout);

async function stored(): Promise<string[]> {
  return readdir(path.join(server.store, team)).catch(() => []);
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

// Each test runs the CLI two to four times, one after another: on a busy machine that takes a while.
describe.sequential('remote cache against a turborepo-remote-cache server on loopback', { timeout: 120_000 }, () => {
  it('shares a step between two clones: a cold run uploads, the other restores without starting the program, then a changed source misses', async () => {
    const first = await clone();
    const cold = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: first.dir, env: first.env });
    expect(cold.exitCode, cold.stderr).toBe(0);
    expect(buildEvent(cold.stdout).status).toBe('success');
    expect(await stored()).toHaveLength(1);

    const second = await clone();
    const junit = path.join(second.dir, '..', 'junit.xml');
    const restored = await runCli(['run', 'flow.yml', '--output', 'plain', '--events', 'events.ndjson', '--junit', junit], { cwd: second.dir, env: second.env });
    expect(restored.exitCode, restored.stderr).toBe(0);
    const event = buildEvent(await readFile(path.join(second.dir, 'events.ndjson'), 'utf8'));
    expect(event).toMatchObject({ status: 'up_to_date', source: 'remote' });
    expect(await exists(path.join(second.dir, 'runs.log'))).toBe(false);
    expect(await readFile(path.join(second.dir, 'dist/out.txt'), 'utf8')).toBe('a\n');
    expect(restored.stdout).toMatch(/≡ up_to_date \[remote\] .*restored from the remote cache/);
    expect(restored.stdout).toMatch(/build\s+up_to_date\s+\S+ \(remote: restored from the remote cache \(key [0-9a-f]{12}, 1 file\)\)/);
    expect(await readFile(junit, 'utf8')).toContain('up to date (remote): restored from the remote cache');
    expect(`${restored.stdout}${restored.stderr}`).not.toContain(token);

    const again = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: second.dir, env: second.env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(buildEvent(again.stdout)).toMatchObject({ status: 'up_to_date', source: 'local' });

    await writeFile(path.join(second.dir, 'src/a.txt'), 'changed\n');
    const changed = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: second.dir, env: second.env });
    expect(buildEvent(changed.stdout)).toMatchObject({ status: 'success' });
    expect(await readFile(path.join(second.dir, 'runs.log'), 'utf8')).toBe('ran\n');
    expect(await stored()).toHaveLength(2);
  });

  it('shares a task whose sources and generates are the task’s: the other clone restores it whole, running none of its steps', async () => {
    const taskFlow = flow.replace(
      /steps:[\s\S]*$/,
      `tasks:
  build:
    sources: ["src/**"]
    generates: ["dist/**"]
    steps:
      - { id: compile, tool: shell, with: { script: "mkdir -p dist && cat src/*.txt > dist/out.txt && echo ran >> runs.log" } }
`,
    );
    const [first, second] = [await clone('task\n'), await clone('task\n')];
    for (const project of [first, second]) await writeFile(path.join(project.dir, 'flow.yml'), taskFlow);
    const before = new Set(await stored());
    const cold = await runCli(['run', 'flow.yml', 'build', '--output', 'json'], { cwd: first.dir, env: first.env });
    expect(finishedEvent(cold.stdout, 'compile').status, cold.stderr).toBe('success');
    const added = (await stored()).filter((name) => !before.has(name));
    expect(added).toHaveLength(1);
    // The other clone's plan names the task's key: the one the artifact is stored under.
    const plan = await runCli(['plan', 'flow.yml', 'build'], { cwd: second.dir, env: second.env });
    expect(plan.stdout).toMatch(
      new RegExp(`Task build, one up-to-date check \\(its sources:\\):\\n  up to date: no — .*\\n  cache key: ${added[0]} \\(from tool task and its arguments; `),
    );
    const restored = await runCli(['run', 'flow.yml', 'build', '--output', 'json'], { cwd: second.dir, env: second.env });
    expect(finishedEvent(restored.stdout, 'compile'), restored.stderr).toMatchObject({ status: 'up_to_date', source: 'remote' });
    expect(await exists(path.join(second.dir, 'runs.log'))).toBe(false);
    expect(await readFile(path.join(second.dir, 'dist/out.txt'), 'utf8')).toBe('task\n');
  });

  it('warns and runs the step when the token is refused, never printing it', async () => {
    const project = await clone('wrong token\n');
    const run = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: project.dir, env: { ...project.env, TURBO_TOKEN: 'not-the-token' } });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(buildEvent(run.stdout).status).toBe('success');
    expect(run.stderr).toMatch(/remote cache http:\/\/127\.0\.0\.1:\d+: reading failed: the server refused the token \(HTTP 401\)/);
    expect(`${run.stdout}${run.stderr}`).not.toContain('not-the-token');
  });

  it('never uploads in read-only mode', async () => {
    const before = await stored();
    const project = await clone('read only\n');
    const run = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: project.dir, env: { ...project.env, TURBO_REMOTE_CACHE_READ_ONLY: 'true' } });
    expect(buildEvent(run.stdout).status).toBe('success');
    expect(await stored()).toEqual(before);
  });

  it('with a signature key, refuses an artifact changed on the server and runs the step', async () => {
    const signed = { TURBO_REMOTE_CACHE_SIGNATURE_KEY: 'a signature key of the team' };
    const first = await clone('signed\n');
    const before = new Set(await stored());
    expect((await runCli(['run', 'flow.yml'], { cwd: first.dir, env: { ...first.env, ...signed } })).exitCode).toBe(0);
    const [added] = (await stored()).filter((name) => !before.has(name));
    const artifact = path.join(server.store, team, added!);
    const bytes = await readFile(artifact);
    bytes[bytes.length - 5] = bytes[bytes.length - 5]! ^ 0xff;
    await writeFile(artifact, bytes);

    const second = await clone('signed\n');
    const run = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: second.dir, env: { ...second.env, ...signed } });
    expect(buildEvent(run.stdout).status).toBe('success');
    expect(run.stderr).toContain('its signature (x-artifact-tag) is missing or does not match');
    expect(await readFile(path.join(second.dir, 'runs.log'), 'utf8')).toBe('ran\n');
  });

  it('refuses an artifact that would write outside the workspace, and runs the step', async () => {
    const project = await clone('escape\n');
    const plan = await runCli(['plan', 'flow.yml'], { cwd: project.dir, env: project.env });
    const key =
      /cache key: ([0-9a-f]{64}) \(from tool shell and its arguments; no variables; 1 source file; generates dist\/\*\*; platform [a-z0-9]+\/[a-z0-9]+; cache format 1\)/.exec(
        plan.stdout,
      )?.[1];
    expect(key, plan.stdout).toBeDefined();
    const entry = (name: string, body: string) => {
      const header = new Header({ path: name, mode: 0o644, size: body.length, type: 'File', mtime: new Date(0) });
      header.encode();
      return [header.block!, Buffer.from(body), Buffer.alloc((512 - (body.length % 512)) % 512)];
    };
    const record = JSON.stringify({ format: 1, output: '', data: null, files: ['dist/../../escaped.txt'] });
    const tarball = gzipSync(Buffer.concat([...entry('rho-record.json', record), ...entry('files/dist/../../escaped.txt', 'pwned'), Buffer.alloc(1024)]));
    const put = await fetch(`${server.url}/v8/artifacts/${key}?slug=${team}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: tarball,
    });
    expect(put.status).toBe(200);

    const run = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: project.dir, env: project.env });
    expect(buildEvent(run.stdout).status).toBe('success');
    expect(run.stderr).toContain('is refused: it holds "dist/../../escaped.txt": it leaves the workspace (..); the step runs');
    expect(await exists(path.join(project.dir, '..', 'escaped.txt'))).toBe(false);
    expect(await readFile(path.join(project.dir, 'dist/out.txt'), 'utf8')).toBe('escape\n');
  });

  it('shares the example workflow between two checkouts, its server allowed by a rule', async () => {
    const checkouts = await Promise.all(
      [1, 2].map(async () => {
        const base = await directories.make();
        const dir = path.join(base, 'checkout');
        await cp(path.join(repoRoot, 'workflows', 'remote-cache'), path.join(dir, 'workflows', 'remote-cache'), { recursive: true });
        await cp(path.join(repoRoot, 'workflows', 'remote-cache.yml'), path.join(dir, 'workflows', 'remote-cache.yml'));
        return { dir, env: { XDG_STATE_HOME: path.join(base, 'state'), TURBO_API: server.url, TURBO_TOKEN: token } };
      }),
    );
    const args = ['run', 'workflows/remote-cache.yml', '--output', 'json', '--allow', 'network(127.0.0.1)'];
    const [first, second] = checkouts as [(typeof checkouts)[0], (typeof checkouts)[0]];
    expect(finishedEvent((await runCli(args, { cwd: first.dir, env: first.env })).stdout, 'bundle').status).toBe('success');
    const restored = await runCli(args, { cwd: second.dir, env: second.env });
    expect(finishedEvent(restored.stdout, 'bundle')).toMatchObject({ status: 'up_to_date', source: 'remote' });
    expect(await readFile(path.join(second.dir, 'out/remote-cache/bundle.txt'), 'utf8')).toBe('shared\nacross machines\n');
  });
});
