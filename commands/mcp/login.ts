import { Args, Flags } from '@oclif/core';
import { RhoCommand } from '../../src/cli/rho-command.js';
import { readCliEnvironment } from '../../src/cli/environment.js';
import { HostError, ToolError } from '../../src/host/errors.js';
import { exitCodes } from '../../src/host/exit-codes.js';
import { repeatable } from '../../src/cli/run-flags.js';

export default class McpLogin extends RhoCommand {
  static override summary = 'Sign in to an OAuth-protected MCP server, for the runs that use it.';
  static override description =
    `SERVER is the server's URL, or the name of an MCP server over HTTP that a workflow file declares (rho.yml here or above, or --file); its url may use the file's inputs (their defaults, or --input).

Prints the authorization URL (and opens it in a browser where there is one), receives the code on a loopback address, and keeps the tokens in $XDG_CONFIG_HOME/rho/mcp-credentials.json (default ~/.config/rho), readable by you alone. A run that needs a sign-in fails at once with this command.`;

  static override examples = [
    '<%= config.bin %> mcp login https://mcp.example.com/mcp',
    '<%= config.bin %> mcp login github -f workflows/triage.yml',
    '<%= config.bin %> mcp login https://mcp.example.com/mcp --scope "repo read:org"',
    'MCP_CLIENT_SECRET=... <%= config.bin %> mcp login https://mcp.example.com/mcp --client-id rho-ci --client-secret-env MCP_CLIENT_SECRET',
  ];

  static override args = {
    server: Args.string({ ignoreStdin: true, description: 'The URL of the MCP server (its Streamable HTTP endpoint), or the name a workflow file gives it', required: true }),
  };

  static override flags = {
    file: Flags.string({ char: 'f', summary: 'The workflow file that declares SERVER, when SERVER is a name (default: rho.yml here or above).', helpValue: 'WORKFLOW' }),
    input: repeatable('Workflow input KEY=VALUE, for a server url that uses one. Repeatable.', 'KEY=VALUE', 'i'),
    scope: Flags.string({ summary: 'Scopes to ask for (space-separated); default: the server’s.', helpValue: 'SCOPES' }),
    'client-metadata-url': Flags.string({
      summary: 'An HTTPS URL of a client ID metadata document for rho, used where the authorization server accepts one (default: register a client).',
      helpValue: 'URL',
      exclusive: ['client-id'],
    }),
    'client-id': Flags.string({ summary: 'A client registered with the authorization server beforehand (default: rho registers one).', helpValue: 'ID' }),
    'client-secret-env': Flags.string({
      summary: 'The environment variable holding that client’s secret (never on the command line).',
      helpValue: 'NAME',
      dependsOn: ['client-id'],
    }),
    browser: Flags.boolean({ summary: 'Open the URL in a browser where there is one.', default: true, allowNo: true }),
    wait: Flags.integer({ summary: 'Seconds to wait for the sign-in to finish.', default: 300, min: 1, helpValue: 'SECONDS' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(McpLogin);
    const env = readCliEnvironment().env;
    const { describeLoginTarget, resolveLoginTarget } = await import('../../src/cli/login-target.js');
    let url: URL;
    try {
      url = await resolveLoginTarget({ server: args.server, file: flags.file, inputs: flags.input ?? [], cwd: process.cwd() });
    } catch (error) {
      if (error instanceof HostError) this.error(error.message, { exit: exitCodes.usage });
      throw error;
    }
    const target = describeLoginTarget(args.server, url);
    const metadataUrl = flags['client-metadata-url'];
    if (metadataUrl !== undefined && !/^https:\/\/[^/]+\/./.test(metadataUrl))
      this.error(`--client-metadata-url ${metadataUrl}: a client ID metadata document has an https URL with a path`, { exit: exitCodes.usage });
    const secretName = flags['client-secret-env'];
    const secret = secretName === undefined ? undefined : env[secretName];
    if (secretName !== undefined && !secret) this.error(`--client-secret-env ${secretName}: the variable is not set`, { exit: exitCodes.usage });
    const [{ signIn }, { openInBrowser }] = await Promise.all([import('../../src/tools/mcp/auth/sign-in.js'), import('../../src/cli/open-browser.js')]);
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    try {
      const outcome = await signIn({
        url,
        env,
        ...(flags.scope !== undefined && { scope: flags.scope }),
        ...(flags['client-metadata-url'] !== undefined && { clientMetadataUrl: flags['client-metadata-url'] }),
        ...(flags['client-id'] !== undefined && { client: { client_id: flags['client-id'], ...(secret && { client_secret: secret }) } }),
        open: (authorizationUrl) => {
          process.stderr.write(`Open this URL to sign in to ${target}:\n\n  ${authorizationUrl.href}\n\nWaiting for the sign-in to finish…\n`);
          if (flags.browser) openInBrowser(authorizationUrl.href, env);
        },
        waitMs: flags.wait * 1000,
        signal: stop.signal,
      });
      this.log(outcome.result === 'already' ? `Already signed in to ${target} (${outcome.file}).` : `Signed in to ${target}; the tokens are in ${outcome.file}.`);
    } catch (error) {
      if (error instanceof ToolError) this.error(error.message, { exit: error.kind === 'interrupted' ? exitCodes.interrupted : exitCodes.failure });
      throw error;
    }
  }
}
