import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cliPath, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';
import { answers, proxyClient } from '../support/proxy-client.js';
import { startServer, type TestServer } from '../tools/network/servers.js';

// Every run here is confined (CI installs bubblewrap). What is tested is what a confined process
// can reach besides what its rules name: unix sockets of the host, another step's or another
// run's way to the proxy, new namespaces, the host's SysV IPC, and secrets on an argv.
const temp = temporaryDirectories('rho-channels-test-');
afterAll(() => temp.removeAll());

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A workspace (`work/` in a fresh directory) with the proxy client and the given files. */
async function workspace(files: Record<string, string>): Promise<{ base: string; dir: string }> {
  const base = await temp.make();
  const dir = path.join(base, 'work');
  await writeFiles(dir, { 'client.mjs': await readFile(proxyClient, 'utf8'), ...files });
  return { base, dir };
}

function events(file: string): { type: string; [key: string]: unknown }[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

/** Waits for a file a step creates to say it is running (a step's own pace, not a clock, decides). */
async function waitForFile(file: string): Promise<void> {
  await expect.poll(() => existsSync(file), { timeout: 20_000, interval: 20 }).toBe(true);
}

/** The argv of every process on the machine that can still be read, by pid. */
function everyCommandLine(): Map<number, string> {
  const lines = new Map<number, string>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      lines.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      // Gone meanwhile.
    }
  }
  return lines;
}

/** A unix socket server outside the workspace that answers every connection, as an ssh agent or a Docker daemon would. */
async function hostSocket(socketPath: string, reply: string): Promise<Server> {
  const listening = createServer((connection) => connection.end(reply));
  await new Promise<void>((resolve) => listening.listen(socketPath, resolve));
  return listening;
}

/** Several CLI starts in one test: on a loaded machine each can take seconds. */
const cliStarts = { timeout: 120_000 };

describe('private channels of confined processes (end to end)', () => {
  it('a host unix socket is out of reach, wherever it lies, unless a unix_socket rule opens them', cliStarts, async () => {
    const { base, dir } = await workspace({
      'hooks.toml': `[[pre_tool_use]]\nname = "agent-gate"\ncommand = ["node", "agent-gate.mjs"]\n`,
      'agent-gate.mjs': `import net from 'node:net';
process.stdin.resume();
const answer = (said) => console.log(JSON.stringify({ decision: 'deny', reason: 'the agent said: ' + said }));
const socket = net.connect('../agent.sock');
socket.on('data', (data) => answer(String(data)));
socket.on('error', (error) => answer(error.code));
`,
      'flow.yml': `version: 1
name: agent
policy:
  allow: ["process(node client.mjs)"]
steps:
  - id: agent
    tool: exec
    with: { command: node, args: [client.mjs, unix, ../agent.sock] }
`,
    });
    const agent = await hostSocket(path.join(base, 'agent.sock'), 'ssh-ed25519 AAAA the agent keys');
    try {
      const closed = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir });
      expect(closed.exitCode, closed.stdout + closed.stderr).toBe(0);
      expect(answers(closed.stdout)).toEqual({ agent: { error: 'EPERM' } });
      const open = await runCli(['run', 'flow.yml', '--output', 'plain', '--allow', 'unix_socket'], { cwd: dir });
      expect(answers(open.stdout)).toEqual({ agent: { reply: 'ssh-ed25519 AAAA the agent keys' } });
      // A deny wins over the allow.
      const denied = await runCli(['run', 'flow.yml', '--output', 'plain', '--allow', 'unix_socket', '--deny', 'unix_socket'], { cwd: dir });
      expect(answers(denied.stdout)).toEqual({ agent: { error: 'EPERM' } });

      expect((await runCli(['plan', 'flow.yml'], { cwd: dir })).stdout).toContain('  unix sockets: none (its seccomp filter refuses them; a unix_socket rule opens them)');
      expect((await runCli(['plan', 'flow.yml', '--allow', 'unix_socket'], { cwd: dir })).stdout).toContain('  unix sockets: every host unix socket it can see (unix_socket)');

      // A hook runs under the same filter, whatever the workflow's rules: it answers with what it reached.
      const gated = await runCli(['run', 'flow.yml', '--output', 'plain', '--allow', 'unix_socket', '--hooks', 'hooks.toml'], { cwd: dir });
      expect(gated.exitCode).toBe(3);
      expect(gated.stdout).toContain('was denied by hook agent-gate: the agent said: EPERM');
    } finally {
      await new Promise((resolve) => agent.close(resolve));
    }
  });

  it('a confined process cannot create a user namespace, and its SysV IPC objects never reach the host', cliStarts, async () => {
    const { dir } = await workspace({
      'flow.yml': `version: 1
name: namespaces
policy:
  allow: [shell]
steps:
  - id: inside
    tool: shell
    with: { script: 'unshare -Ur true 2>/dev/null; echo "unshare=$?"; ipcmk -Q >/dev/null; echo "ipcmk=$?"; ipcs -q | grep -c "^0x"' }
`,
    });
    const hostQueues = async () => (await execa('ipcs', ['-q'])).stdout;
    const before = await hostQueues();
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir });
    expect(result.exitCode, result.stdout).toBe(0);
    // The queue was made in the sandbox's own IPC namespace, and only that one is there.
    expect(result.stdout).toMatch(/^\[inside\] unshare=[1-9]\d*\n\[inside\] ipcmk=0\n\[inside\] 1$/m);
    expect(await hostQueues()).toBe(before);
  });

  it('puts no secret and no environment value on the argv of any process of a confined step behind the proxy', cliStarts, async () => {
    server = await startServer((_request, response) => response.end('ok'));
    const secret = 'argv-canary-9f3c2e71';
    const { dir } = await workspace({
      'flow.yml': `version: 1
name: argv
secrets: [DEPLOY_TOKEN]
env:
  PLAIN_SETTING: plain-canary-5a1d
policy:
  allow: [shell, "network(${server.host})", "write(out/**)"]
steps:
  - id: hold
    tool: shell
    with:
      script: 'touch out/ready; while [ ! -e out/done ]; do sleep 0.05; done'
      env: { DEPLOY_TOKEN: "\${{ secrets.DEPLOY_TOKEN }}" }
`,
    });
    const run = execa(process.execPath, [cliPath, 'run', 'flow.yml', '--output', 'plain'], { cwd: dir, env: { CI: 'true', DEPLOY_TOKEN: secret }, reject: false });
    try {
      await waitForFile(path.join(dir, 'out', 'ready'));
      const lines = everyCommandLine();
      const sandbox = [...lines.values()].filter((line) => line.includes('--seccomp') && line.includes(dir));
      expect(sandbox.length, 'the step runs under bubblewrap').toBeGreaterThan(0);
      expect(
        [...lines.values()].some((line) => line.includes('rho network forwarder')),
        "the run's forwarder runs",
      ).toBe(true);
      // Nor the step's proxy token, which is in its environment only.
      expect([...lines.entries()].filter(([, line]) => line.includes(secret) || line.includes('plain-canary-5a1d') || /rho:[0-9a-f]{64}/.test(line))).toEqual([]);
    } finally {
      await writeFile(path.join(dir, 'out', 'done'), '');
    }
    const result = await run;
    expect(result.exitCode, String(result.stdout)).toBe(0);
  });

  it("a run without network rules cannot use another run's way to the proxy", cliStarts, async () => {
    server = await startServer((_request, response) => response.end('through the other run'));
    const holder = await workspace({
      'flow.yml': `version: 1
name: holder
policy:
  allow: [shell, "network(${server.host})", "write(out/**)"]
steps:
  - id: hold
    tool: shell
    with: { script: 'touch out/ready; while [ ! -e out/done ]; do sleep 0.05; done' }
`,
    });
    const thief = await workspace({
      'flow.yml': `version: 1
name: thief
policy:
  allow: ["process(node client.mjs)"]
steps:
  - id: steal
    tool: exec
    with: { command: node, args: [client.mjs, steal, "${server.origin}/stolen", ${JSON.stringify(os.tmpdir())}] }
`,
    });
    const held = execa(process.execPath, [cliPath, 'run', 'flow.yml', '--output', 'plain'], { cwd: holder.dir, env: { CI: 'true' }, reject: false });
    try {
      await waitForFile(path.join(holder.dir, 'out', 'ready'));
      const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: thief.dir });
      expect(answers(result.stdout)).toMatchObject({ steal: { stolen: false } });
    } finally {
      await writeFile(path.join(holder.dir, 'out', 'done'), '');
    }
    expect((await held).exitCode).toBe(0);
    expect(server.requests).toEqual([]);
  });

  it("a step whose requests a gate denies cannot send them as another step's: each is decided as its own", cliStarts, async () => {
    server = await startServer((_request, response) => response.end('allowed'));
    const { dir } = await workspace({
      'gate.mjs': `let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const { payload } = JSON.parse(input);
  const refused = payload.step_id === 'thief' && payload.capability.class === 'network';
  console.log(JSON.stringify(refused ? { decision: 'deny', reason: 'not for the thief' } : { decision: 'continue' }));
});
`,
      'flow.yml': `version: 1
name: gated
policy:
  allow: ["process(sh -c)", "process(node client.mjs)", "network(${server.host})"]
hooks:
  pre_tool_use:
    - command: [node, gate.mjs]
steps:
  - id: holder
    tool: process_start
    with: { name: holder, command: sh, args: [-c, "sleep 30"] }
  - id: thief
    tool: exec
    with: { command: node, args: [client.mjs, steal, "${server.origin}/stolen", ${JSON.stringify(os.tmpdir())}] }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain', '--events', 'events.ndjson'], { cwd: dir });
    expect(answers(result.stdout)).toEqual({ thief: { stolen: false, status: 403 } });
    expect(server.requests).toEqual([]);
    const decided = events(path.join(dir, 'events.ndjson')).filter((event) => event.type === 'approval_decided' && event.class === 'network');
    expect(decided).toEqual([expect.objectContaining({ stepId: 'thief', host: server.host, result: 'deny', decider: 'hook' })]);
  });

  it('a host the proxy refuses is named: the step is denied (exit 3) with the rule that grants it, and the event names the host', cliStarts, async () => {
    server = await startServer((_request, response) => response.end('reached'));
    const { dir } = await workspace({
      'flow.yml': `version: 1
name: named
policy:
  allow: ["process(node client.mjs)", "network(127.0.0.1:1)"]
  ask: ["network(${server.host})"]
steps:
  - id: fetch
    tool: exec
    with: { command: node, args: [client.mjs, fetch, "${server.origin}/data"] }
`,
    });
    const refused = await runCli(['run', 'flow.yml', '--output', 'plain', '--events', 'events.ndjson'], { cwd: dir });
    expect(refused.exitCode).toBe(3);
    expect(refused.stdout).toContain(
      `node exited with code 1 after rho's network proxy refused it a connection: step fetch: network request "GET ${server.origin}/data" needs approval`,
    );
    expect(refused.stdout).toContain(`run again with --approve 'network(${server.host})'`);
    const all = events(path.join(dir, 'events.ndjson'));
    expect(all.filter((event) => event.type === 'approval_decided' && event.class === 'network')).toEqual([expect.objectContaining({ host: server.host, result: 'deny' })]);
    expect(all.find((event) => event.type === 'step_finished')).toMatchObject({ stepId: 'fetch', status: 'denied', error: { kind: 'approval_denied' } });
    expect(server.requests).toEqual([]);

    const approved = await runCli(['run', 'flow.yml', '--output', 'plain', '--approve', `network(${server.host})`], { cwd: dir });
    expect(approved.exitCode, approved.stdout).toBe(0);
    expect(answers(approved.stdout)).toEqual({ fetch: { status: 200, body: 'reached' } });
  });
});
