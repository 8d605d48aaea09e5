import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';
import { startServer, type TestServer } from '../tools/network/servers.js';

const temp = temporaryDirectories('rho-network-hosts-test-');
afterAll(() => temp.removeAll());

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A workflow of http_request steps, one per URL, each allowed to fail so that every one is tried. */
async function fetchesOf(policy: string, urls: Record<string, string>): Promise<string> {
  const dir = await temp.make();
  const steps = Object.entries(urls)
    .map(([id, url]) => `  - id: ${id}\n    tool: http_request\n    with: { url: "${url}" }\n    continue_on_error: true\n`)
    .join('');
  await writeFiles(dir, { 'flow.yml': `version: 1\nname: hosts\npolicy:\n${policy}\nsteps:\n${steps}` });
  return dir;
}

describe('hosts in every spelling (end to end)', () => {
  it('deny: network(127.0.0.1) holds against mapped IPv6, numeric forms and a name that resolves to it', async () => {
    server = await startServer((_request, response) => response.end('reached'));
    const port = new URL(server.origin).port;
    const dir = await fetchesOf('  allow: [network]\n  deny: ["network(127.0.0.1)", "network([::1])"]', {
      mapped: `http://[::ffff:127.0.0.1]:${port}/`,
      mapped_hex: `http://[::ffff:7f00:1]:${port}/`,
      decimal: `http://2130706433:${port}/`,
      hex: `http://0x7f.1:${port}/`,
      by_name: `http://localhost:${port}/`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir });
    // Each step may fail, so the run passes; every one of them was denied.
    expect(result.stdout).toMatch(/Result: exit 0 \(5 denied\)/);
    expect(result.stdout).toMatch(/localhost resolved to (127\.0\.0\.1|\[::1\]), a loopback address/);
    expect(server.requests).toHaveLength(0);
  });

  it('a name that resolves to a special address needs a rule naming it: localhost does for loopback', async () => {
    server = await startServer((_request, response) => response.end('reached'));
    const port = new URL(server.origin).port;
    const dir = await fetchesOf(`  allow: ["network(localhost:${port})"]`, { local: `http://LOCALHOST.:${port}/` });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
  });
});
