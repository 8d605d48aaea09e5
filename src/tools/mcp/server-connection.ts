import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  ListResourcesResultSchema,
  ReadResourceResultSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ToolError } from '../../host/errors.js';
import { clientCapabilities, installClientRequests, type ActiveCall } from './client-requests.js';
import { installServerLog } from './server-log.js';

/** How long a server gets to start and answer `initialize` and `tools/list`. */
export const startupTimeoutMs = 30_000;
/** Most tools rho takes from one server, and most `tools/list` pages it reads. */
export const maxServerTools = 1000;
const maxListPages = 50;
/** Most resources rho takes from one server's `resources/list`. */
export const maxListedResources = 1000;
/**
 * The host enforces each call's limit through its signal, and stops that clock while a person
 * answers a server's question; the SDK's own timer (60 s by default) knows neither, so it is
 * set beyond any limit rho allows.
 */
const callTimeoutMs = 2 ** 31 - 1;

/**
 * `tools/list` read leniently: each tool is an untrusted declaration checked on its own, so one
 * malformed entry leaves out that tool instead of failing the whole listing.
 */
const toolListPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** How rho talks to one server: stdio to a process it started, or Streamable HTTP. */
export interface ServerChannel {
  transport: Transport;
  /** Starts what can start before the MCP client is ready (a stdio server's process); the handshake follows. */
  begin(): Promise<void>;
  /** Why talking to the server failed, with what the channel knows (how a process exited, its stderr). */
  describe(cause: unknown): Promise<string>;
  /** Ends the channel (and the server process, for stdio); `immediate` when nothing is worth waiting for. Safe to call more than once. */
  close(immediate?: boolean): Promise<void>;
  /** The server's process id, for stdio. */
  readonly pid?: number | undefined;
}

export interface CallOptions extends ActiveCall {
  signal: AbortSignal;
  onProgress(message: string): void;
}

/** A running MCP server and rho's client session with it. */
export class ServerConnection {
  /** Calls waiting for the server's answer: a question the server asks belongs to one of them. */
  private readonly active = new Set<ActiveCall>();
  /** Told when the server says its tools changed (`notifications/tools/list_changed`). */
  private toolsChanged: (() => void) | undefined;

  private constructor(
    readonly name: string,
    private readonly client: Client,
    private readonly channel: ServerChannel,
  ) {}

  /**
   * Completes the MCP handshake over an (already authorized) channel. rho declares roots (the
   * given directories) and form elicitation; a server's sampling requests are refused.
   */
  static async open(name: string, channel: ServerChannel, options: { signal: AbortSignal; roots: readonly string[] }): Promise<ServerConnection> {
    const client = new Client({ name: 'rho', version: '1' }, { capabilities: clientCapabilities });
    let connection: ServerConnection | undefined;
    installClientRequests(client, { server: name, roots: options.roots, activeCall: () => connection?.soleActiveCall() });
    installServerLog(client, name, () => connection?.soleActiveCall());
    // Handled as it arrives, before any answer the server sent after it: a call made once that
    // answer is in already sees the tools being listed again.
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => connection?.toolsChanged?.());
    try {
      await client.connect(channel.transport, { signal: options.signal, timeout: startupTimeoutMs });
    } catch (cause) {
      // Stopped from outside (the run ended first): the server is stopped at once, its exit not waited for.
      if (options.signal.aborted) {
        await channel.close(true);
        throw cause;
      }
      // rho's own refusals (a sign-in a run cannot make, a request the policy denied) already say
      // what to do; a failure of the channel (the server is gone) is described as any other.
      if (cause instanceof ToolError && cause.kind !== 'execution_failed') {
        await channel.close();
        throw cause;
      }
      const reason = await channel.describe(cause);
      await channel.close();
      throw new ToolError('execution_failed', `the server did not complete the MCP handshake: ${reason}`, { cause });
    }
    connection = new ServerConnection(name, client, channel);
    return connection;
  }

  /** Calls `listener` each time the server says its tool list changed; one listener, the last set. */
  onToolsChanged(listener: () => void): void {
    this.toolsChanged = listener;
  }

  get pid(): number | undefined {
    return this.channel.pid;
  }

  /** The one call in progress; with none or several, a server's question cannot be placed. */
  private soleActiveCall(): ActiveCall | undefined {
    if (this.active.size !== 1) return undefined;
    return this.active.values().next().value;
  }

  /**
   * The server's tool declarations as sent (unchecked), across pages, within rho's bounds: past
   * `maxServerTools` entries or `maxListPages` pages the rest is left out, never read into the run,
   * and `leftOut` says what was.
   */
  async listTools(signal: AbortSignal): Promise<{ tools: unknown[]; leftOut: string | undefined }> {
    const tools: unknown[] = [];
    let excess = 0;
    let cursor: string | undefined;
    for (let page = 0; page < maxListPages; page++) {
      let result: z.infer<typeof toolListPage>;
      try {
        result = await this.client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, toolListPage, {
          signal,
          timeout: startupTimeoutMs,
        });
      } catch (cause) {
        throw new ToolError('execution_failed', `the server did not list its tools: ${await this.channel.describe(cause)}`, { cause });
      }
      const room = maxServerTools - tools.length;
      tools.push(...result.tools.slice(0, room));
      excess += Math.max(0, result.tools.length - room);
      cursor = result.nextCursor;
      const beyond = `it lists more than ${maxServerTools} tools; the first ${maxServerTools} were kept and`;
      if (cursor === undefined) return { tools, leftOut: excess > 0 ? `${beyond} ${excess} more left out` : undefined };
      // Further pages can only add tools that would be left out.
      if (excess > 0) return { tools, leftOut: `${beyond} the rest left out` };
    }
    return { tools, leftOut: `it kept paging its tool list past ${maxListPages} pages; the tools on later pages were left out` };
  }

  /** Whether the server offers resources (`resources` among its capabilities). */
  get offersResources(): boolean {
    return this.client.getServerCapabilities()?.resources !== undefined;
  }

  /** One resource's contents (`resources/read`). */
  async readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    try {
      return await this.client.request({ method: 'resources/read', params: { uri } }, ReadResourceResultSchema, { signal, timeout: callTimeoutMs });
    } catch (cause) {
      if (signal.aborted) throw cause;
      throw new ToolError('execution_failed', `MCP server ${this.name}, resource ${uri}: ${await this.channel.describe(cause)}`, { cause });
    }
  }

  /**
   * The server's resources across pages, within rho's bounds: past `maxListedResources` or
   * `maxListPages` pages the rest is left out, and `complete` is false.
   */
  async listResources(signal: AbortSignal): Promise<{ resources: Resource[]; complete: boolean }> {
    const resources: Resource[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < maxListPages; page++) {
      let result: z.infer<typeof ListResourcesResultSchema>;
      try {
        result = await this.client.request({ method: 'resources/list', params: cursor === undefined ? {} : { cursor } }, ListResourcesResultSchema, {
          signal,
          timeout: callTimeoutMs,
        });
      } catch (cause) {
        if (signal.aborted) throw cause;
        throw new ToolError('execution_failed', `MCP server ${this.name} did not list its resources: ${await this.channel.describe(cause)}`, { cause });
      }
      const room = maxListedResources - resources.length;
      resources.push(...result.resources.slice(0, room));
      if (result.resources.length > room) return { resources, complete: false };
      cursor = result.nextCursor;
      if (cursor === undefined) return { resources, complete: true };
    }
    return { resources, complete: false };
  }

  async callTool(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    const call: ActiveCall = { stepId: options.stepId, ask: options.ask, notice: options.notice };
    this.active.add(call);
    try {
      return await this.client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, CallToolResultSchema, {
        signal: options.signal,
        timeout: callTimeoutMs,
        onprogress: (progress) => {
          const total = progress.total === undefined ? '' : `/${progress.total}`;
          options.onProgress(progress.message ?? `${progress.progress}${total}`);
        },
      });
    } catch (cause) {
      if (options.signal.aborted) throw cause;
      throw new ToolError('execution_failed', `MCP server ${this.name}, tool ${tool}: ${await this.channel.describe(cause)}`, { cause });
    } finally {
      this.active.delete(call);
    }
  }

  /** Stops the server (its process group, for stdio). Safe to call more than once. */
  async stop(): Promise<void> {
    await this.client.close().catch(() => undefined);
    await this.channel.close();
  }
}
