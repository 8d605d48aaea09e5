import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NetworkRequest } from '../../../host/capability.js';
import type { NetworkProxy, ProxyConnection, ProxyEndpoint } from '../../../host/confinement/index.js';
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

  /** @param node the Node that runs each sandbox's forwarder (this one). */
  constructor(private readonly node: string = process.execPath) {}

  endpoint(authorize: (request: NetworkRequest) => Promise<void>): ProxyEndpoint {
    return { open: () => this.open(authorize) };
  }

  close(): void {
    this.proxy?.close();
    if (this.directory) rmSync(this.directory, { recursive: true, force: true });
    this.proxy = undefined;
    this.directory = undefined;
  }

  private open(authorize: (request: NetworkRequest) => Promise<void>): ProxyConnection {
    this.proxy ??= new FilteringProxy();
    this.directory ??= mkdtempSync(path.join(os.tmpdir(), 'rho-proxy-'));
    const socketPath = path.join(this.directory, `${++this.sockets}.sock`);
    const listener = this.proxy.listen(socketPath, authorize);
    return {
      sandboxArguments: ['--bind', socketPath, socketPath],
      program: this.node,
      command: (target) => forwardedCommand(this.node, socketPath, target),
      close: () => listener.close(),
    };
  }
}
