'use strict';
// One workflow (and the rho commands to run on it) for each client scenario of the MCP
// conformance suite.

/** The rule that lets rho reach the scenario's server: its host and port, as `network(HOST:PORT)`. */
function networkRule(url) {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `network(${url.hostname}:${port})`;
}

/** A workflow whose one server is the scenario's, with the given steps (YAML text, indented). */
function workflow(url, steps, extra = {}) {
  const lines = [
    'version: 1',
    'name: conformance',
    ...(extra.secrets ? [`secrets: [${extra.secrets.join(', ')}]`] : []),
    'tools:',
    '  - mcp:',
    '      name: srv',
    `      url: ${JSON.stringify(url.href)}`,
    ...(extra.serverLines ?? []).map((line) => `      ${line}`),
    'policy:',
    '  allow:',
    `    - ${JSON.stringify(networkRule(url))}`,
    ...(extra.allow ?? []).map((rule) => `    - ${JSON.stringify(rule)}`),
    '    - "network_tool(srv.*)"',
    'steps:',
    steps,
  ];
  return `${lines.join('\n')}\n`;
}

function step(id, tool, args) {
  return [`  - id: ${id}`, `    tool: ${tool}`, ...(args ? [`    with: ${JSON.stringify(args)}`] : [])].join('\n');
}

/** Lists the workflow's tools, the server's among them: connecting and listing is all the scenario asks. */
function listTools(url) {
  return { workflow: workflow(url, step('hello', 'echo', { value: 'hello' })), commands: [['tools', '-f', 'workflow.yml']] };
}

function runSteps(url, steps) {
  return { workflow: workflow(url, steps), commands: [['run', 'workflow.yml']] };
}

const path = require('node:path');

/** The browser `rho mcp login` opens: it follows the authorization server's redirects back to rho. */
const browser = path.join(__dirname, 'headless-browser');

/** The client ID metadata document the suite's authorization servers accept. */
const clientMetadataUrl = 'https://conformance-test.local/client-metadata.json';

/** Signs in with `rho mcp login`, as a person at a terminal would, then runs a workflow that calls the server's tool. */
function signInAndRun(url, loginFlags = [], env = {}) {
  return {
    workflow: workflow(url, step('call', 'srv.test-tool', {})),
    commands: [
      ['mcp', 'login', url.href, ...loginFlags],
      ['run', 'workflow.yml'],
    ],
    env: { BROWSER: browser, ...env },
  };
}

const authorizationCodeScenarios = [
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
];

/**
 * A run in CI with an `oauth:` grant (client credentials, or an identity provider's ID token): the
 * credentials reach rho as secrets (from the environment, never argv or the file). The suite's authorization server is another port of
 * `localhost`, which the policy grants: a run reaches an authorization server only as a
 * network request like any other.
 */
function clientCredentialsRun(url, oauth, secrets) {
  const oauthLines = Object.entries(oauth).map(([key, value]) => `  ${key}: ${JSON.stringify(value)}`);
  return {
    workflow: workflow(url, step('call', 'srv.test-tool', {}), { secrets: Object.keys(secrets), serverLines: ['oauth:', ...oauthLines], allow: ['network(localhost)'] }),
    commands: [['run', 'workflow.yml']],
    env: secrets,
  };
}

const scenarios = {
  ...Object.fromEntries(authorizationCodeScenarios.map((name) => [name, (url) => signInAndRun(url)])),
  'auth/basic-cimd': (url) => signInAndRun(url, ['--client-metadata-url', clientMetadataUrl]),
  // A client registered beforehand: its secret reaches rho through the environment, never argv.
  'auth/pre-registration': (url, context) =>
    signInAndRun(url, ['--client-id', context.client_id, '--client-secret-env', 'CONFORMANCE_CLIENT_SECRET'], { CONFORMANCE_CLIENT_SECRET: context.client_secret }),
  'auth/client-credentials-basic': (url, context) =>
    clientCredentialsRun(url, { client_id: context.client_id, client_secret: '${{ secrets.CONFORMANCE_CLIENT_SECRET }}' }, { CONFORMANCE_CLIENT_SECRET: context.client_secret }),
  'auth/client-credentials-jwt': (url, context) =>
    clientCredentialsRun(
      url,
      { client_id: context.client_id, private_key: '${{ secrets.CONFORMANCE_CLIENT_KEY }}', algorithm: context.signing_algorithm },
      { CONFORMANCE_CLIENT_KEY: context.private_key_pem },
    ),
  // Cross-app access (SEP-990): the ID token the organisation's identity provider issued reaches
  // rho as a CI secret would; rho exchanges it there for a grant, and that for the access token.
  'auth/cross-app-access-complete-flow': (url, context) =>
    clientCredentialsRun(
      url,
      {
        client_id: context.client_id,
        client_secret: '${{ secrets.CONFORMANCE_CLIENT_SECRET }}',
        identity_provider: { token_endpoint: context.idp_token_endpoint, client_id: context.idp_client_id, id_token: '${{ secrets.CONFORMANCE_ID_TOKEN }}' },
      },
      { CONFORMANCE_CLIENT_SECRET: context.client_secret, CONFORMANCE_ID_TOKEN: context.idp_id_token },
    ),
  initialize: (url) => listTools(url),
  tools_call: (url) => runSteps(url, step('add', 'srv.add_numbers', { a: 5, b: 3 })),
  // Nothing is answered: every field takes the server's default (SEP-1034).
  'elicitation-sep1034-client-defaults': (url) => runSteps(url, step('ask', 'srv.test_client_elicitation_defaults', {})),
  'sse-retry': (url) => runSteps(url, step('reconnect', 'srv.test_reconnection', {})),
};

/** The workflow and rho commands for a scenario, or undefined for one rho has none for. */
function scenarioRun(name, url, context) {
  const build = scenarios[name];
  return build ? { env: {}, ...build(url, context) } : undefined;
}

module.exports = { scenarioRun };
