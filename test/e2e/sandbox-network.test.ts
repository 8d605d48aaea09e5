import { readFile } from 'node:fs/promises';
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
});
