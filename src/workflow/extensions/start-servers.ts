import { ToolError } from '../../host/errors.js';
import type { ToolHost } from '../../host/tool-host.js';
import { evaluateDeep, type ExpressionContext } from '../expressions/index.js';
import type { Problem } from '../problems.js';
import type { WorkflowSource } from '../source.js';
import type { DeclaredServer } from './tool-sources.js';

export interface ServerStartOptions {
  /** The workflow file: an entry's `cwd` is relative to its directory, and warnings point into it. */
  source: WorkflowSource;
  /** An entry's `env` values may use these, as the workflow's `env:` does. */
  inputs: ExpressionContext['inputs'];
  secrets: ExpressionContext['secrets'];
  signal: AbortSignal;
}

/** The subject a server start is authorized as: hooks and the audit see the tool `mcp:<name>`. */
export function serverStartSubject(name: string) {
  return { id: `mcp-server-${name}`, tool: `mcp:${name}`, args: {} };
}

function evaluateEnv(server: DeclaredServer, options: ServerStartOptions): Record<string, string> | undefined {
  const env = server.declaration.env;
  if (env === undefined) return undefined;
  const context: ExpressionContext = { inputs: options.inputs, secrets: options.secrets, env: {}, steps: {}, run: { failed: false, cancelled: false } };
  try {
    return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, String(evaluateDeep(value, context) ?? '')]));
  } catch (cause) {
    throw new ToolError('invalid_arguments', `MCP server ${server.declaration.name} was not started: env: ${(cause as Error).message}`, { cause });
  }
}

/**
 * Starts the workflow's MCP servers one after another and registers their tools on the host.
 * Each start is a `process` request on the host's authorization path (policy, hooks,
 * approvals), decided before the program is spawned; each server is stopped when the host is
 * disposed. A refusal or a failed start throws a ToolError (a denial keeps its kind); the
 * returned warnings, located at the server's entry, name tools it offered that were left out.
 */
export async function startDeclaredServers(host: ToolHost, servers: readonly DeclaredServer[], options: ServerStartOptions): Promise<Problem[]> {
  if (servers.length === 0) return [];
  // The MCP client loads only when a workflow declares servers: it costs more than Node's own start.
  const { startMcpServer } = await import('../../tools/mcp/start-server.js');
  const warnings: Problem[] = [];
  for (const server of servers) {
    const { name } = server.declaration;
    const env = evaluateEnv(server, options);
    const started = await startMcpServer(
      { ...server.declaration, ...(env && { env }) },
      {
        baseDirectory: options.source.directory,
        host: host.environment,
        session: host.session,
        signal: options.signal,
        authorize: async (request) => {
          const denial = await host.authorizeRequest(serverStartSubject(name), request, options.signal);
          if (denial) throw denial;
        },
      },
    );
    for (const tool of started.tools) host.tools.register(tool);
    const at = options.source.position(server.at);
    warnings.push(...started.warnings.map((message) => ({ file: options.source.file, ...at, message: `warning: ${message}` })));
  }
  return warnings;
}
