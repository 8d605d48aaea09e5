import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, runCli, writeFiles } from '../support/cli.js';
import { startOauthServer, type OauthServer } from '../support/oauth-server.js';

// The fixture's authorization server is advertised as http://localhost:PORT: another origin than
// the MCP endpoint's http://127.0.0.1:PORT, so reaching it needs a rule of its own.
let dir: string;
let cleanup: () => Promise<void>;
let server: OauthServer;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  server = await startOauthServer(['--issuer-host', 'localhost']);
});
afterEach(async () => {
  server.stop();
  await cleanup();
});

const config = () => path.join(dir, 'config');
const tokenRequests = () => server.seen.filter((request) => request.path === '/token').map((request) => request.grant);

function workflow(serverLines: string): string {
  return `version: 1
name: ci
secrets: [CI_CLIENT_SECRET]
tools:
  - mcp:
      name: web
      url: "${server.endpoint}"
${serverLines}
policy:
  allow: ["network(127.0.0.1:${server.port})", "network_tool(web.*)"]
steps:
  - id: who
    tool: web.whoami
  - id: leak
    tool: web.leak
    continue_on_error: true
`;
}

const clientCredentials = `      oauth:
        client_id: ci-client
        client_secret: "\${{ secrets.CI_CLIENT_SECRET }}"`;

describe('an OAuth-protected MCP server in CI (end to end)', () => {
  it('authorizes a run with client credentials from secrets, the authorization server reached only once granted, the token masked', async () => {
    await writeFiles(dir, { 'flow.yml': workflow(clientCredentials) });
    const env = { XDG_CONFIG_HOME: config(), CI: 'true', CI_CLIENT_SECRET: 'ci-client-secret' };

    const denied = await runCli(['run', 'flow.yml'], { cwd: dir, env });
    expect(denied.exitCode).toBe(3);
    expect(denied.stderr).toContain(`--allow 'network(localhost:${server.port})'`);
    expect(tokenRequests()).toEqual([]);

    const run = await runCli(['run', 'flow.yml', '--output', 'plain', '--allow', `network(localhost:${server.port})`], { cwd: dir, env });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/\[who\] ✔/);
    expect(tokenRequests()).toEqual(['client_credentials']);
    // The server echoes the Authorization header it got: the access token is masked.
    expect(run.stdout).toContain('you sent Bearer ***');
    expect(run.stdout + run.stderr).not.toMatch(/access-token-|ci-client-secret/);
    // Client-credentials tokens live for the run: nothing is written to the user's sign-ins.
    await expect(readdir(config())).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('fails at once, saying why, when the authorization server refuses the client', async () => {
    await writeFiles(dir, { 'flow.yml': workflow(clientCredentials) });
    const env = { XDG_CONFIG_HOME: config(), CI: 'true', CI_CLIENT_SECRET: 'not-the-client-secret' };
    const run = await runCli(['run', 'flow.yml', '--allow', `network(localhost:${server.port})`], { cwd: dir, env });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain('MCP server web was not started');
    expect(run.stderr).toContain('the authorization server refused: invalid_client');
    expect(run.stdout + run.stderr).not.toContain('not-the-client-secret');
  });

  it('refreshes a stored sign-in at an authorization server of another origin only as a granted network request', async () => {
    const file = path.join(config(), 'rho', 'mcp-credentials.json');
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const issuer = `http://localhost:${server.port}`;
    const stale = { access_token: 'stale-access-token', token_type: 'Bearer', refresh_token: 'refresh-seeded', issuer };
    await writeFile(file, JSON.stringify({ version: 1, servers: { [server.endpoint]: { client: { client_id: 'registered-client', issuer }, tokens: stale } } }), { mode: 0o600 });
    await writeFiles(dir, { 'flow.yml': workflow('') });
    const env = { XDG_CONFIG_HOME: config(), CI: 'true', CI_CLIENT_SECRET: 'unused-client-secret' };

    const denied = await runCli(['run', 'flow.yml'], { cwd: dir, env });
    expect(denied.exitCode).toBe(3);
    expect(denied.stderr).toContain(`--allow 'network(localhost:${server.port})'`);
    expect(tokenRequests()).toEqual([]);

    const run = await runCli(['run', 'flow.yml', '--allow', `network(localhost:${server.port})`], { cwd: dir, env });
    expect(run.exitCode).toBe(0);
    expect(tokenRequests()).toEqual(['refresh_token']);
  });
});
