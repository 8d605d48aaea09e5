import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, runCli, writeFiles } from '../support/cli.js';
import { startOauthServer, type OauthServer } from '../support/oauth-server.js';

// Cross-app access (SEP-990) against the fixture: its identity provider is reached as
// http://localhost:PORT (another origin than the MCP server's http://127.0.0.1:PORT, so it needs
// a rule of its own), its authorization server shares the MCP server's origin.
let dir: string;
let cleanup: () => Promise<void>;
let server: OauthServer;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  server = await startOauthServer();
  await writeFiles(dir, {
    'flow.yml': `version: 1
name: ci
secrets: [IDP_ID_TOKEN, CI_CLIENT_SECRET]
tools:
  - mcp:
      name: web
      url: "${server.endpoint}"
      oauth:
        client_id: ci-client
        client_secret: "\${{ secrets.CI_CLIENT_SECRET }}"
        identity_provider:
          token_endpoint: "http://localhost:${server.port}/idp/token"
          client_id: idp-client
          id_token: "\${{ secrets.IDP_ID_TOKEN }}"
policy:
  allow: ["network(127.0.0.1:${server.port})", "network_tool(web.*)"]
steps:
  - id: who
    tool: web.whoami
  - id: leak
    tool: web.leak
    continue_on_error: true
`,
  });
});
afterEach(async () => {
  server.stop();
  await cleanup();
});

const idpRule = () => `network(localhost:${server.port})`;
const env = (idToken: string) => ({ XDG_CONFIG_HOME: path.join(dir, 'config'), CI: 'true', CI_CLIENT_SECRET: 'ci-client-secret', IDP_ID_TOKEN: idToken });
const tokenRequests = () => server.seen.filter((request) => request.grant !== undefined).map((request) => `${request.path} ${request.grant}`);
const issuedGrants = () => server.seen.flatMap((request) => (request.issued ? [request.issued] : []));

describe('cross-app access: an ID token from the identity provider, exchanged for the MCP server’s access token (end to end)', () => {
  it('exchanges the ID token at the identity provider, reached only once granted, then the grant for a token; the ID token, grant and token are masked', async () => {
    const denied = await runCli(['run', 'flow.yml'], { cwd: dir, env: env('id-token-ada') });
    expect(denied.exitCode).toBe(3);
    expect(denied.stderr).toContain(`--allow '${idpRule()}'`);
    expect(tokenRequests()).toEqual([]);

    const run = await runCli(['run', 'flow.yml', '--output', 'plain', '--events', 'events.ndjson', '--allow', idpRule()], { cwd: dir, env: env('id-token-ada') });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/\[who\] ✔/);
    expect(tokenRequests()).toEqual(['/idp/token urn:ietf:params:oauth:grant-type:token-exchange', '/token urn:ietf:params:oauth:grant-type:jwt-bearer']);
    // The server echoes the Authorization header it got: the access token is masked.
    expect(run.stdout).toContain('you sent Bearer ***');
    const events = await readFile(path.join(dir, 'events.ndjson'), 'utf8');
    for (const channel of [run.stdout, run.stderr, events]) {
      expect(channel).not.toMatch(/access-token-|id-token-ada|ci-client-secret/);
      for (const grant of issuedGrants()) expect(channel).not.toContain(grant);
    }
    // Tokens of the grant live for the run: nothing is written to the user's sign-ins.
    await expect(readdir(path.join(dir, 'config'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('fails the step at once, saying what the identity provider said, when it refuses the ID token — which stays masked', async () => {
    const run = await runCli(['run', 'flow.yml', '--allow', idpRule()], { cwd: dir, env: env('id-token-of-nobody') });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('MCP server web was not started');
    expect(run.stderr).toContain(
      `the identity provider at http://localhost:${server.port}/idp/token did not exchange the ID token for an authorization grant: it refused: invalid_grant (not an ID token of ours: ***)`,
    );
    expect(run.stdout + run.stderr).not.toContain('id-token-of-nobody');
    expect(tokenRequests()).toEqual(['/idp/token urn:ietf:params:oauth:grant-type:token-exchange']);
  });

  it('asks the identity provider for no grant when the server points at another authorization server than oauth.issuer', async () => {
    const flow = await readFile(path.join(dir, 'flow.yml'), 'utf8');
    await writeFiles(dir, { 'flow.yml': flow.replace('        identity_provider:', '        issuer: "https://auth.tracker.example"\n        identity_provider:') });
    const run = await runCli(['run', 'flow.yml', '--allow', idpRule()], { cwd: dir, env: env('id-token-ada') });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('MCP server web was not started');
    expect(run.stderr).toContain('https://auth.tracker.example');
    expect(server.seen.map((request) => request.path)).not.toContain('/idp/token');
    expect(tokenRequests()).toEqual([]);
  });

  it('fails saying the authorization server refused a grant, the grant masked in its message', async () => {
    const run = await runCli(['run', 'flow.yml', '--allow', idpRule()], { cwd: dir, env: env('id-token-eve') });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('the authorization server refused: invalid_grant (no access for ***)');
    const grants = issuedGrants();
    expect(grants.length).toBeGreaterThan(0);
    for (const grant of grants) expect(run.stdout + run.stderr).not.toContain(grant);
  });
});
