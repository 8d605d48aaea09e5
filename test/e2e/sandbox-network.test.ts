import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';
import { answers, proxyClient } from '../support/proxy-client.js';
import { startServer, type TestServer } from '../tools/network/servers.js';

// Every run here is confined (CI installs bubblewrap): a process reaches 127.0.0.1 only
// through rho's proxy, and only the host and port a network rule names.
const temp = temporaryDirectories('rho-sandbox-net-test-');
afterAll(() => temp.removeAll());

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function workspace(rules: string[], steps: Record<string, string[]>): Promise<string> {
  const dir = await temp.make();
  const stepText = Object.entries(steps)
    .map(([id, args]) => `  - id: ${id}\n    tool: exec\n    with: { command: node, args: ${JSON.stringify(['client.mjs', ...args])} }\n    continue_on_error: true\n`)
    .join('');
  await writeFiles(dir, {
    'client.mjs': await readFile(proxyClient, 'utf8'),
    'flow.yml': `version: 1\nname: net\npolicy:\n  allow: ${JSON.stringify(['process(node client.mjs)', ...rules])}\nsteps:\n${stepText}`,
  });
  return dir;
}

describe('the network of confined processes (end to end)', () => {
  it('reaches a local server through an allowed network(127.0.0.1:PORT), and nothing else', async () => {
    server = await startServer((request, response) => response.end(`hello from ${request.url}`));
    const other = await startServer((_request, response) => response.end('other'));
    const dir = await workspace([`network(${server.host})`], {
      proxied: ['get', `${server.origin}/greeting?token=s3cret`],
      tunnel: ['connect', server.host],
      direct: ['direct', server.origin],
      other_port: ['get', `${other.origin}/`],
    });
    const result = await runCli(['run', 'flow.yml', '--sandbox', 'required', '--output', 'plain', '--events', 'events.ndjson'], { cwd: dir });
    await other.close();
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(answers(result.stdout)).toEqual({
      proxied: { status: 200, body: 'hello from /greeting?token=s3cret' },
      tunnel: { status: 200, body: 'hello from /tunnelled' },
      direct: { connected: false, code: 'ECONNREFUSED' },
      other_port: { status: 403, body: expect.stringContaining(`network(${other.host})`) },
    });
    expect(other.requests).toHaveLength(0);
    // Each host the proxy allowed or refused is a decision in the events, like any other request.
    const decisions = (await readFile(path.join(dir, 'events.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((event) => event.type === 'approval_decided' && event.class === 'network');
    expect(decisions.map((event) => [event.step_id ?? event.stepId, event.result, event.decider])).toEqual([
      ['proxied', 'allow', 'policy'],
      ['tunnel', 'allow', 'policy'],
      ['other_port', 'deny', 'policy'],
    ]);
    expect(JSON.stringify(decisions)).not.toContain('s3cret');
  });

  it('a background process keeps reaching allowed hosts after the call that started it is over', async () => {
    server = await startServer((request, response) => response.end(`hello from ${request.url}`));
    const dir = await temp.make();
    await writeFiles(dir, {
      'client.mjs': await readFile(proxyClient, 'utf8'),
      'flow.yml': `version: 1
name: background
policy:
  allow: ["process(sh -c)", "process(node client.mjs)", "network(${server.host})"]
steps:
  - id: start
    tool: process_start
    with: { name: later, command: sh, args: [-c, "sleep 0.5; exec node client.mjs get ${server.origin}/later"] }
  - id: read
    tool: process_output
    with: { process_id: later, wait_for: "}" }
  - id: show
    tool: echo
    with: { value: "\${{ steps.read.output }}" }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--sandbox', 'required', '--output', 'plain'], { cwd: dir });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(answers(result.stdout)).toEqual({ show: { status: 200, body: 'hello from /later' } });
    expect(server.requests.map((request) => request.url)).toEqual(['/later']);
  });

  it('without a network rule a confined process has no network at all', async () => {
    server = await startServer((_request, response) => response.end('unreachable'));
    const dir = await workspace([], { direct: ['direct', server.origin], environment: ['env'] });
    const result = await runCli(['run', 'flow.yml', '--sandbox', 'required', '--output', 'plain'], { cwd: dir });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(answers(result.stdout)).toEqual({ direct: { connected: false, code: 'ECONNREFUSED' }, environment: { env: {} } });
    expect(server.requests).toHaveLength(0);
  });

  it('a denied address stays denied through the proxy in every spelling, and for a name that resolves to it', async () => {
    server = await startServer((_request, response) => response.end('reached'));
    const port = new URL(server.origin).port;
    const dir = await workspace(['network'], {
      mapped: ['get', `http://[::ffff:127.0.0.1]:${port}/`],
      mapped_hex: ['get', `http://[::ffff:7f00:1]:${port}/`],
      numeric: ['get', `http://2130706433:${port}/`],
      tunnel: ['connect', `[::ffff:7f00:1]:${port}`],
      by_name: ['get', `http://localhost:${port}/`],
    });
    // An unrestricted network rule that a deny narrows goes through the proxy. localhost may resolve to either address.
    const denials = ['--deny', 'network(127.0.0.1)', '--deny', 'network([::1])'];
    const result = await runCli(['run', 'flow.yml', '--sandbox', 'required', '--output', 'plain', ...denials], { cwd: dir });
    const refused = { status: 403, body: expect.stringContaining('the rule deny: network(127.0.0.1) matches') };
    expect(answers(result.stdout)).toMatchObject({ mapped: refused, mapped_hex: refused, numeric: refused, tunnel: { status: 403 }, by_name: { status: 403 } });
    expect(result.stdout).toMatch(/localhost resolved to (127\.0\.0\.1|\[::1\]), a loopback address/);
    expect(server.requests).toHaveLength(0);
  });

  it('decides the requests of two steps that run at once each by its own rules', async () => {
    server = await startServer((request, response) => response.end(`hello from ${request.url}`));
    const dir = await temp.make();
    // Each step waits until the other runs, so both are behind the proxy at once.
    const step = (id: string, other: string) =>
      `  - id: ${id}\n    tool: shell\n    writes: [out/${id}]\n    with: { script: 'touch out/${id}; while [ ! -e out/${other} ]; do sleep 0.02; done; node client.mjs get ${server!.origin}/${id}' }\n`;
    await writeFiles(dir, {
      'client.mjs': await readFile(proxyClient, 'utf8'),
      'out/.keep': '',
      'gate.mjs': `let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const { payload } = JSON.parse(input);
  const refused = payload.step_id === 'refused' && payload.capability.class === 'network';
  console.log(JSON.stringify(refused ? { decision: 'deny', reason: 'not for this step' } : { decision: 'continue' }));
});
`,
      'flow.yml': `version: 1\nname: parallel\nmax_parallel: 2\npolicy:\n  allow: [shell, "network(${server.host})", "write(out/**)"]\nhooks:\n  pre_tool_use:\n    - command: [node, gate.mjs]\nsteps:\n${step('allowed', 'refused')}${step('refused', 'allowed')}`,
    });
    const result = await runCli(['run', 'flow.yml', '--sandbox', 'required', '--output', 'plain', '--events', 'events.ndjson'], { cwd: dir });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(answers(result.stdout)).toEqual({ allowed: { status: 200, body: 'hello from /allowed' }, refused: { status: 403, body: expect.stringContaining('not for this step') } });
    expect(server.requests.map((request) => request.url)).toEqual(['/allowed']);
    const decisions = (await readFile(path.join(dir, 'events.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((event) => event.type === 'approval_decided' && event.class === 'network')
      .map((event) => [event.stepId, event.result, event.decider]);
    expect(decisions.sort()).toEqual([
      ['allowed', 'allow', 'policy'],
      ['refused', 'deny', 'hook'],
    ]);
  });

  it("answers 407 to a request without a token or with an ended step's, decides nothing for it, and shows no token anywhere", async () => {
    server = await startServer((request, response) => response.end(`hello from ${request.url}`));
    const base = await temp.make();
    const dir = path.join(base, 'work');
    const logs = path.join(base, 'logs');
    await writeFiles(dir, {
      'client.mjs': await readFile(proxyClient, 'utf8'),
      'out/.keep': '',
      'flow.yml': `version: 1
name: tokens
policy:
  allow: [shell, "process(node client.mjs)", "network(${server.host})", "write(out/**)"]
steps:
  - id: ended
    tool: shell
    with: { script: 'printf "%s" "$HTTP_PROXY" > out/proxy-url; echo "out: $HTTP_PROXY"; echo "err: $HTTPS_PROXY" >&2; node client.mjs get ${server.origin}/own' }
  - id: anonymous
    tool: exec
    with: { command: node, args: [client.mjs, anonymous, "${server.origin}/anonymous"] }
  - id: replayed
    tool: exec
    with: { command: node, args: [client.mjs, replay, out/proxy-url, "${server.origin}/replayed"] }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--sandbox', 'required', '--output', 'plain', '--events', path.join(base, 'events.ndjson'), '--logs', logs], { cwd: dir });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const challenged = { status: 407, body: expect.any(String), challenge: 'Basic realm="rho"' };
    expect(answers(result.stdout)).toEqual({ ended: { status: 200, body: 'hello from /own' }, anonymous: challenged, replayed: challenged });
    expect(server.requests.map((request) => request.url)).toEqual(['/own']);
    const events = await readFile(path.join(base, 'events.ndjson'), 'utf8');
    const decided = events
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((event) => event.type === 'approval_decided' && event.class === 'network');
    expect(decided.map((event) => event.stepId)).toEqual(['ended']);
    // The token the first step had, as the file it wrote holds it: no output, event or log shows it.
    const token = /^http:\/\/rho:([0-9a-f]{64})@127\.0\.0\.1:\d+$/.exec(await readFile(path.join(dir, 'out', 'proxy-url'), 'utf8'))?.[1];
    expect(token).toBeDefined();
    expect(result.stdout).toMatch(/out: http:\/\/rho:\*\*\*[0-9a-f]{32}@127\.0\.0\.1:\d+/);
    const logFiles = await readdir(logs, { recursive: true, withFileTypes: true });
    const logged = await Promise.all(logFiles.filter((entry) => entry.isFile()).map((entry) => readFile(path.join(entry.parentPath, entry.name), 'utf8')));
    expect(logged.join('')).toContain('err: http://rho:');
    for (const text of [result.stdout, result.stderr, events, ...logged]) expect(text).not.toContain(token!);
  });
});
