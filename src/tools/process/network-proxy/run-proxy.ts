import type { AuthorizeConnection, NetworkProxy, ProxyConnection, ProxyEndpoint } from '../../../host/confinement/index.js';
import { denialKinds, ToolError } from '../../../host/errors.js';
import { FilteringProxy } from './filtering-proxy.js';
import { forwarderCommand, serveForwarder } from './forwarder.js';

/**
 * The filtering proxy of one run, started when the first confined process that needs it starts
 * (a run without `network(HOST)` rules never starts it). Each process gets a channel of its own
 * (its sandbox's IPC channel: no socket path another sandbox could reach), closed when the
 * process is gone; `close` ends the proxy with the run.
 */
export class RunNetworkProxy implements NetworkProxy {
  private proxy: FilteringProxy | undefined;
  private readonly open = new Set<ProxyConnection>();

  /** @param node the Node that runs each sandbox's forwarder (this one). */
  constructor(private readonly node: string = process.execPath) {}

  endpoint(authorize: AuthorizeConnection): ProxyEndpoint {
    return { open: () => this.connect(authorize) };
  }

  close(): void {
    for (const connection of [...this.open]) connection.close();
    this.proxy?.close();
    this.proxy = undefined;
  }

  /** A channel for one process; its pending decisions are abandoned when it closes, and its first denial is kept. */
  private connect(authorize: AuthorizeConnection): ProxyConnection {
    this.proxy ??= new FilteringProxy();
    const lifetime = new AbortController();
    let refused: ToolError | undefined;
    const channel = this.proxy.channel(async (request) => {
      try {
        await authorize(request, lifetime.signal);
      } catch (error) {
        if (error instanceof ToolError && denialKinds.has(error.kind)) refused ??= error;
        throw error;
      }
    });
    const connection: ProxyConnection = {
      program: this.node,
      command: () => forwarderCommand(this.node),
      attach: (sandbox, target) => serveForwarder(sandbox, target, channel.accept),
      refusal: () => refused,
      close: () => {
        this.open.delete(connection);
        lifetime.abort();
        channel.close();
      },
    };
    this.open.add(connection);
    return connection;
  }
}
