import type { CapabilityRequest } from '../../host/capability.js';
import type { CallConfinement } from '../../host/confinement/index.js';
import { HostError, ToolError, toToolError } from '../../host/errors.js';
import type { SessionState } from '../../host/session-state.js';
import type { HostEnvironment, Tool } from '../../host/tool.js';
import { mcpTool, parseMcpToolDeclaration } from './mcp-tool.js';
import { resourceTools } from './resource-tools.js';
import type { ServerChannel, ServerConnection } from './server-connection.js';
import { planServerConnect, type McpServerDeclaration } from './server-launch.js';

export interface ServerStartOptions {
  /** Directory the entry's `cwd` (default `.`) is relative to: the workflow file's. */
  baseDirectory: string;
  host: HostEnvironment;
  /** Canonical directories steps can write: a program found on PATH there needs a rule naming its path. */
  writableRoots: readonly string[];
  /** How the server is confined: like a process step of the same policy. */
  confinement?: CallConfinement;
  /** The host's authorization path for the server's `process` (stdio) or `network` (HTTP) request; throws the typed denial. */
  authorize(request: CapabilityRequest): Promise<void>;
  /** The client's roots: the workspace root, then the granted roots. */
  roots: readonly string[];
  /** The run's session: the server is stopped when it is disposed. */
  session: SessionState;
  signal: AbortSignal;
}

/** A server's tools as listed once. */
export interface ListedTools {
  /** The server's tools that passed the checks, named `<server>.<tool>`. */
  tools: Tool[];
  /** One line for each tool left out, saying why. */
  warnings: string[];
}

export interface StartedServer extends ListedTools {
  connection: ServerConnection;
  /**
   * Calls `listener` when the server says its tools changed, with the listing that replaces them
   * (started at once; it rejects when the server does not list them).
   */
  onToolsChanged(listener: (relisted: Promise<ListedTools>) => void): void;
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
  const plan = await planServerConnect(declaration, options.baseDirectory, options.host, options.writableRoots, options.confinement);
  await options.authorize(plan.request);
  // The MCP client loads while the server process starts: each takes a while, neither needs the other.
  const loading = import('./server-connection.js');
  const channel = await plan.channel((request) => options.authorize(request));
  const { ServerConnection } = await begun(channel, loading);
  const connection = await ServerConnection.open(declaration.name, channel, { signal: options.signal, roots: options.roots });
  options.session.onDispose(() => connection.stop());
  const listed = await listedTools(declaration.name, connection, options.signal);
  return {
    connection,
    ...listed,
    onToolsChanged: (listener) => connection.onToolsChanged(() => listener(listedTools(declaration.name, connection, options.signal))),
  };
}

/** What `loading` brings, once `channel` has begun; a channel that could not begin is closed at once, its server not waited for. */
async function begun<T>(channel: ServerChannel, loading: Promise<T>): Promise<T> {
  try {
    await channel.begin();
    return await loading;
  } catch (error) {
    await channel.close(true);
    throw error;
  }
}

/** The server's tools, each declaration checked on its own, and what was left out; then its resource tools, when it offers resources. */
async function listedTools(server: string, connection: ServerConnection, signal: AbortSignal): Promise<ListedTools> {
  const tools: Tool[] = [];
  const names = new Set<string>();
  const rejected: string[] = [];
  const listed = await connection.listTools(signal);
  for (const raw of listed.tools) {
    try {
      const declaration = parseMcpToolDeclaration(raw);
      const tool = mcpTool(connection, declaration);
      if (names.has(tool.name)) throw new HostError('invalid_tool', `tool ${tool.name} is listed twice`);
      names.add(tool.name);
      tools.push(tool);
    } catch (error) {
      rejected.push((error as Error).message);
    }
  }
  return { tools: [...tools, ...resourceTools(connection)], warnings: leftOutWarnings(server, rejected, listed.leftOut) };
}

/** Most warnings one server's rejected declarations produce; the rest are counted in one line. */
const maxDeclarationWarnings = 10;

/** One line per rejected declaration (up to a bound), and one for what was beyond rho's limits. */
function leftOutWarnings(server: string, rejected: readonly string[], beyondLimit: string | undefined): string[] {
  const warnings = rejected.slice(0, maxDeclarationWarnings).map((reason) => `MCP server ${server}: a tool was left out: ${reason}`);
  if (rejected.length > maxDeclarationWarnings) {
    warnings.push(`MCP server ${server}: ${rejected.length - maxDeclarationWarnings} more tools were left out for invalid declarations`);
  }
  if (beyondLimit !== undefined) warnings.push(`MCP server ${server}: ${beyondLimit}`);
  return warnings;
}
