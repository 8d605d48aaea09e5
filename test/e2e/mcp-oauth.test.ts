import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliEvents } from '../support/cli-events.js';
import { makeTempDir, repoRoot, runCli, writeFiles } from '../support/cli.js';
import { startOauthServer, type OauthServer, type SeenRequest } from '../support/oauth-server.js';

/** Stands in for the person's browser: follows the authorization server's redirect back to rho. */
const browser = path.join(repoRoot, 'test/conformance/headless-browser');

let dir: string;
let cleanup: () => Promise<void>;
let server: OauthServer;
let endpoint: string;
let seen: SeenRequest[];

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  server = await startOauthServer();
  ({ endpoint, seen } = server);
  const { port } = server;
  await writeFiles(dir, {
    'flow.yml': `version: 1
name: protected
tools:
  - mcp: { name: web, url: "${endpoint}" }
policy:
  allow: ["network(127.0.0.1:${port})", "network_tool(web.*)"]
steps:
  - id: who
    tool: web.whoami
`,
  });
});
afterEach(async () => {
  server.stop();
  await cleanup();
});

const config = () => path.join(dir, 'config');
const credentialsFile = () => path.join(config(), 'rho', 'mcp-credentials.json');
const env = () => ({ XDG_CONFIG_HOME: config(), BROWSER: browser });

async function storedTokens(): Promise<{ access_token: string; refresh_token?: string }> {
  const file = JSON.parse(await readFile(credentialsFile(), 'utf8')) as { servers: Record<string, { tokens: { access_token: string; refresh_token?: string } }> };
  return file.servers[endpoint]!.tokens;
}

describe('an OAuth-protected MCP server (end to end)', () => {
  it('signs in with rho mcp login (the server named as the workflow names it), keeps the tokens for the user alone, and a run uses them, masked', async () => {
    const login = await runCli(['mcp', 'login', 'web', '-f', 'flow.yml'], { cwd: dir, env: env() });
    expect(login.exitCode).toBe(0);
    // The server is named as the workflow names it and by its URL: two servers of one host are told apart.
    expect(login.stderr).toContain(`Open this URL to sign in to MCP server web (${endpoint}):`);
    expect(login.stdout).toContain(`Signed in to MCP server web (${endpoint}); the tokens are in ${credentialsFile()}`);
    expect(seen.map((request) => request.path)).toEqual(expect.arrayContaining(['/register', '/authorize', '/token']));
    expect((await stat(credentialsFile())).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(credentialsFile()))).mode & 0o777).toBe(0o700);
    const { access_token: token } = await storedTokens();
    const again = await runCli(['mcp', 'login', endpoint], { cwd: dir, env: env() });
    expect(again.stdout).toContain(`Already signed in to ${endpoint} (${credentialsFile()}).`);

    const leak = `  - id: leak
    tool: web.leak
    continue_on_error: true
`;
    await writeFile(path.join(dir, 'flow.yml'), `${await readFile(path.join(dir, 'flow.yml'), 'utf8')}${leak}`);
    const run = await runCli(['run', 'flow.yml', '--output', 'plain', '--events', 'events.ndjson', '--junit', 'junit.xml'], { cwd: dir, env: env() });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/\[who\] ✔/);
    // The server puts the Authorization header it got in a message: the token is masked in every output.
    const events = await readFile(path.join(dir, 'events.ndjson'), 'utf8');
    expect(run.stdout).toContain('you sent Bearer ***');
    expect(events).toContain('you sent Bearer ***');
    for (const channel of [run.stdout, run.stderr, events, await readFile(path.join(dir, 'junit.xml'), 'utf8')]) expect(channel).not.toContain(token);
  });

  it('fails a run that needs a sign-in at once, naming the command, and registers nothing', async () => {
    const run = await runCli(['run', 'flow.yml'], { cwd: dir, env: { ...env(), CI: 'true' } });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`MCP server web was not started: ${endpoint} needs a sign-in;`);
    expect(run.stdout + run.stderr).toContain(`sign in first with \`rho mcp login ${endpoint}\``);
    expect(seen.map((request) => request.path)).not.toContain('/register');
    expect(seen.map((request) => request.path)).not.toContain('/authorize');
  });

  it('refreshes the access token when the server answers 401, and keeps the new one', async () => {
    await mkdir(path.dirname(credentialsFile()), { recursive: true, mode: 0o700 });
    const issuer = new URL(endpoint).origin;
    const stale = { access_token: 'stale-access-token', token_type: 'Bearer', refresh_token: 'refresh-seeded', issuer };
    await writeFile(credentialsFile(), JSON.stringify({ version: 1, servers: { [endpoint]: { client: { client_id: 'registered-client', issuer }, tokens: stale } } }), {
      mode: 0o600,
    });
    const run = await runCliEvents(['run', 'flow.yml'], { cwd: dir, env: { ...env(), CI: 'true' } });
    expect(run.finished.get('who')).toMatchObject({ status: 'success' });
    expect(run.stderr).not.toContain('[mcp-sdk]');
    expect(seen.filter((request) => request.path === '/token').map((request) => request.grant)).toEqual(['refresh_token']);
    const renewed = await storedTokens();
    expect(renewed.access_token).toMatch(/^access-token-/);
    expect(renewed.refresh_token).not.toBe('refresh-seeded');
  });
});
