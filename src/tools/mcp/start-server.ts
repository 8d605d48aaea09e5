import type { ProcessRequest } from '../../host/capability.js';
import { ToolError, toToolError } from '../../host/errors.js';
import type { SessionState } from '../../host/session-state.js';
import type { HostEnvironment, Tool } from '../../host/tool.js';
import { mcpTool, parseMcpToolDeclaration } from './mcp-tool.js';
import { ServerConnection } from './server-connection.js';
import { planServerLaunch, type McpServerDeclaration } from './server-launch.js';

export interface ServerStartOptions {
  /** Directory the entry's `cwd` (default `.`) is relative to: the workflow file's. */
  baseDirectory: string;
  host: HostEnvironment;
  /** The host's authorization path for the server's `process` request; throws the typed denial. */
  authorize(request: ProcessRequest): Promise<void>;
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
 * Starts one MCP server: the launch is planned, its `process` request authorized, and only then
 * is the program spawned. The server is stopped when the session ends, whatever happens next.
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
  const plan = await planServerLaunch(declaration, options.baseDirectory, options.host);
  await options.authorize(plan.request);
  const connection = await ServerConnection.open(declaration.name, plan.launch, options.signal);
  options.session.onDispose(() => connection.stop());
  const tools: Tool[] = [];
  const warnings: string[] = [];
  for (const raw of await connection.listTools(options.signal)) {
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
