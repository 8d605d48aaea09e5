import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ToolError } from '../../host/errors.js';
import { ServerProcess, type ServerLaunch } from './server-process.js';

/** How long a server gets to start and answer `initialize` and `tools/list`. */
export const startupTimeoutMs = 30_000;
/** Most tools rho takes from one server, and most `tools/list` pages it reads. */
export const maxServerTools = 1000;
const maxListPages = 50;
/** rho's own limits are enforced by the host; this only keeps the SDK's default (60 s) from cutting a longer call. */
const callTimeoutMarginMs = 1000;

/**
 * `tools/list` read leniently: each tool is an untrusted declaration checked on its own, so one
 * malformed entry leaves out that tool instead of failing the whole listing.
 */
const toolListPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** A running MCP server and rho's client session with it. */
export class ServerConnection {
  private constructor(
    readonly name: string,
    private readonly client: Client,
    private readonly process: ServerProcess,
  ) {}

  /** Spawns the (already authorized) server and completes the MCP handshake. */
  static async open(name: string, launch: ServerLaunch, signal: AbortSignal): Promise<ServerConnection> {
    const process = new ServerProcess(launch);
    const client = new Client({ name: 'rho', version: '1' }, { capabilities: {} });
    try {
      await client.connect(process, { signal, timeout: startupTimeoutMs });
    } catch (cause) {
      const reason = await describeFailure(cause, process);
      await process.close();
      throw new ToolError('execution_failed', `the server did not complete the MCP handshake: ${reason}`, { cause });
    }
    return new ServerConnection(name, client, process);
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  /** The server's tool declarations as sent (unchecked), across pages, within rho's bounds. */
  async listTools(signal: AbortSignal): Promise<unknown[]> {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < maxListPages; page++) {
      let result: z.infer<typeof toolListPage>;
      try {
        result = await this.client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, toolListPage, {
          signal,
          timeout: startupTimeoutMs,
        });
      } catch (cause) {
        throw new ToolError('execution_failed', `the server did not list its tools: ${await describeFailure(cause, this.process)}`, { cause });
      }
      tools.push(...result.tools);
      if (tools.length > maxServerTools) {
        throw new ToolError('execution_failed', `the server lists more than ${maxServerTools} tools; rho takes at most ${maxServerTools}`);
      }
      cursor = result.nextCursor;
      if (cursor === undefined) return tools;
    }
    throw new ToolError('execution_failed', `the server kept paging its tool list past ${maxListPages} pages`);
  }

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number; onProgress(message: string): void },
  ): Promise<CallToolResult> {
    try {
      return await this.client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, CallToolResultSchema, {
        signal: options.signal,
        timeout: options.timeoutMs + callTimeoutMarginMs,
        onprogress: (progress) => {
          const total = progress.total === undefined ? '' : `/${progress.total}`;
          options.onProgress(progress.message ?? `${progress.progress}${total}`);
        },
      });
    } catch (cause) {
      if (options.signal.aborted) throw cause;
      throw new ToolError('execution_failed', `MCP server ${this.name}, tool ${tool}: ${await describeFailure(cause, this.process)}`, { cause });
    }
  }

  /** Stops the server (and its process group). Safe to call more than once. */
  async stop(): Promise<void> {
    await this.client.close().catch(() => undefined);
    await this.process.close();
  }
}

/** How long a failure waits to learn whether (and how) the server ended. */
const exitNoticeMs = 500;

/** Why talking to a server failed, with how it exited and its last stderr lines when it is gone. */
async function describeFailure(cause: unknown, process: ServerProcess): Promise<string> {
  await process.settle(exitNoticeMs);
  const parts = [cause instanceof Error ? cause.message : String(cause)];
  const exit = process.exit;
  if (exit) parts.push(exit.code === null ? `the server was killed by ${exit.signal ?? 'a signal'}` : `the server exited with code ${exit.code}`);
  const stderr = process.stderr();
  if (stderr) parts.push(`its stderr ends with:\n${stderr.split('\n').slice(-5).join('\n')}`);
  return parts.join('; ');
}
