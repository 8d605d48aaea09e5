import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AuthorizeConnection, NetworkProxy, ProxyConnection, ProxyEndpoint } from '../../../host/confinement/index.js';
import { FilteringProxy } from './filtering-proxy.js';
import { forwardedCommand } from './forwarder.js';

/**
 * The filtering proxy of one run, started when the first confined process that needs it starts
 * (a run without `network(HOST)` rules never starts it). Each process gets a unix socket of its
 * own in a private directory (mode 0700), bound into its sandbox at the same path, and closed
 * when the process is gone; `close` ends the proxy with the run.
 */
export class RunNetworkProxy implements NetworkProxy {
  private proxy: FilteringProxy | undefined;
  private directory: string | undefined;
  private sockets = 0;
  private readonly open = new Set<ProxyConnection>();

  /** @param node the Node that runs each sandbox's forwarder (this one). */
  constructor(private readonly node: string = process.execPath) {}

  endpoint(authorize: AuthorizeConnection): ProxyEndpoint {
    return { open: () => this.connect(authorize) };
  }

  close(): void {
    for (const connection of [...this.open]) connection.close();
    this.proxy?.close();
    if (this.directory) rmSync(this.directory, { recursive: true, force: true });
    this.proxy = undefined;
    this.directory = undefined;
  }

  /** A socket for one process; its pending decisions are abandoned when it closes. */
  private connect(authorize: AuthorizeConnection): ProxyConnection {
    this.proxy ??= new FilteringProxy();
    this.directory ??= mkdtempSync(path.join(os.tmpdir(), 'rho-proxy-'));
    const socketPath = path.join(this.directory, `${++this.sockets}.sock`);
    const lifetime = new AbortController();
    const listener = this.proxy.listen(socketPath, (request) => authorize(request, lifetime.signal));
    const connection: ProxyConnection = {
      sandboxArguments: ['--bind', socketPath, socketPath],
      program: this.node,
      command: (target) => forwardedCommand(this.node, socketPath, target),
      close: () => {
        this.open.delete(connection);
        lifetime.abort();
        listener.close();
      },
    };
    this.open.add(connection);
    return connection;
  }
}
