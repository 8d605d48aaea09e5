import type { CapabilityRequest } from '../../host/capability.js';
import { ToolError, toToolError } from '../../host/errors.js';
import type { SessionState } from '../../host/session-state.js';
import type { HostEnvironment, Tool } from '../../host/tool.js';
import { mcpTool, parseMcpToolDeclaration } from './mcp-tool.js';
import { ServerConnection } from './server-connection.js';
import { planServerConnect, type McpServerDeclaration } from './server-launch.js';

export interface ServerStartOptions {
  /** Directory the entry's `cwd` (default `.`) is relative to: the workflow file's. */
  baseDirectory: string;
  host: HostEnvironment;
  /** The host's authorization path for the server's `process` (stdio) or `network` (HTTP) request; throws the typed denial. */
  authorize(request: CapabilityRequest): Promise<void>;
  /** The client's roots: the workspace root, then the granted roots. */
  roots: readonly string[];
  /** The run's session: the server is stopped when it is disposed. */
  session: SessionState;
  signal: AbortSignal;
}

export interface StartedServer {
  connection: ServerConnection;
  /** The server's tools that passed the checks, named `<server>.<tool>`. */
  tools: Tool[];
  /** One line for each tool left out, saying why. */
  warnings: string[];
}

/**
 * Starts (or, over HTTP, connects to) one MCP server: the launch is planned, its request
 * authorized, and only then is the program spawned or the URL contacted. The server is stopped when the session ends, whatever happens next.
 * Every failure, a denial included (which keeps its kind), names the server.
 */
export async function startMcpServer(declaration: McpServerDeclaration, options: ServerStartOptions): Promise<StartedServer> {
  try {
    return await startAndList(declaration, options);
  } catch (thrown) {
    const error = toToolError(thrown);
    throw new ToolError(error.kind, `MCP server ${declaration.name} was not started: ${error.message}`, { cause: error, details: { ...error.details } });
  }
}

async function startAndList(declaration: McpServerDeclaration, options: ServerStartOptions): Promise<StartedServer> {
  const plan = await planServerConnect(declaration, options.baseDirectory, options.host);
  await options.authorize(plan.request);
  const connection = await ServerConnection.open(declaration.name, plan.channel(), { signal: options.signal, roots: options.roots });
  options.session.onDispose(() => connection.stop());
  const tools: Tool[] = [];
  const warnings: string[] = [];
  const listing = await connection.listTools(options.signal);
  if (listing.leftOut) warnings.push(`MCP server ${declaration.name}: ${listing.leftOut}`);
  for (const raw of listing.tools) {
    try {
      const tool = mcpTool(connection, parseMcpToolDeclaration(raw));
      if (tools.some((listed) => listed.name === tool.name)) throw new Error(`tool ${tool.name} is listed twice`);
      tools.push(tool);
    } catch (error) {
      warnings.push(`MCP server ${declaration.name}: a tool was left out: ${(error as Error).message}`);
    }
  }
  return { connection, tools, warnings };
}
