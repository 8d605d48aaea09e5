import type {
  AuthorizeConnection,
  NetworkProxy,
  ProxyConnection,
  ProxyEndpoint,
  ProxyRoute,
  SandboxChannel,
  SharedNetwork,
  ShareNetwork,
} from '../../../host/confinement/index.js';
import { denialKinds, ToolError } from '../../../host/errors.js';
import type { SecretMasker } from '../../../host/masking.js';
import { FilteringProxy } from './filtering-proxy.js';
import { forwarderCommand, serveForwarder, startBehindForwarder } from './forwarder.js';
import { newTokenPart, proxyVariables } from './proxy-credentials.js';

export interface RunNetworkProxyOptions {
  /** The Node that runs the forwarders (this one). */
  node?: string;
  /** The run's secrets: the key of the proxy's tokens joins them, so no output shows a token. */
  masker?: SecretMasker;
}

/** The run's shared network namespace, once its forwarder listens. */
interface Relay {
  network: SharedNetwork;
  port: number;
}

/** How long a shared namespace's forwarder may take to say where it listens before the run gives each sandbox its own. */
const relayStartMs = 10_000;

/**
 * The filtering proxy of one run, started when the first confined process that needs it starts
 * (a run without `network(HOST)` rules never starts it). Each process gets a token of its own,
 * which every request it sends presents, dead once the process is gone (`close` of its
 * connection); `close` ends the proxy with the run.
 *
 * Where the launch's backend can share a network namespace, the run starts one forwarder in a
 * namespace of its own, once, and every sandbox behind the proxy joins it: a step pays for no
 * Node start. Where it cannot (or that forwarder is gone), each sandbox runs a forwarder of its
 * own in a namespace of its own, as correct and slower.
 */
export class RunNetworkProxy implements NetworkProxy {
  private proxy: FilteringProxy | undefined;
  private relay: Promise<Relay | undefined> | undefined;
  /** The shared namespace once it is up, closed with the run. */
  private network: SharedNetwork | undefined;
  private closed = false;
  private readonly open = new Set<ProxyConnection>();
  private readonly node: string;
  /** The key of every token the run's proxy gives, masked from the start: a step's output is masked by the secrets known when it starts. */
  private readonly key = newTokenPart();

  constructor(options: RunNetworkProxyOptions = {}) {
    this.node = options.node ?? process.execPath;
    options.masker?.add(this.key);
  }

  endpoint(authorize: AuthorizeConnection): ProxyEndpoint {
    return { open: (share) => this.connect(authorize, share) };
  }

  close(): void {
    this.closed = true;
    for (const connection of [...this.open]) connection.close();
    this.proxy?.close();
    this.proxy = undefined;
    this.network?.close();
    this.network = undefined;
    this.relay = undefined;
  }

  /** A token for one process; its pending decisions are abandoned when it closes, and its first denial is kept. */
  private async connect(authorize: AuthorizeConnection, share: ShareNetwork | undefined): Promise<ProxyConnection> {
    const proxy = (this.proxy ??= new FilteringProxy(this.key));
    const relay = share ? await this.sharedRelay(proxy, share) : undefined;
    const lifetime = new AbortController();
    let refused: ToolError | undefined;
    const admission = proxy.admit(async (request) => {
      try {
        await authorize(request, lifetime.signal);
      } catch (error) {
        if (error instanceof ToolError && denialKinds.has(error.kind)) refused ??= error;
        throw error;
      }
    });
    const route: ProxyRoute = relay
      ? { kind: 'shared', network: relay.network, variables: proxyVariables(relay.port, admission.token) }
      : {
          kind: 'forwarder',
          program: this.node,
          command: () => forwarderCommand(this.node),
          attach: (channel, target) =>
            serveForwarder(
              channel,
              (socket) => proxy.accept(socket),
              (port) => startBehindForwarder(channel, { ...target, env: { ...target.env, ...proxyVariables(port, admission.token) } }),
            ),
        };
    const connection: ProxyConnection = {
      route,
      refusal: () => refused,
      close: () => {
        this.open.delete(connection);
        lifetime.abort();
        admission.close();
      },
    };
    this.open.add(connection);
    return connection;
  }

  /** The run's shared namespace, started at the first process that can join one; undefined once it could not be, or has ended. */
  private sharedRelay(proxy: FilteringProxy, share: ShareNetwork): Promise<Relay | undefined> {
    this.relay ??= this.startRelay(proxy, share);
    return this.relay;
  }

  private async startRelay(proxy: FilteringProxy, share: ShareNetwork): Promise<Relay | undefined> {
    let port: number | undefined;
    const serve = (channel: SandboxChannel) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new ToolError('unsupported', `the shared network's forwarder did not start within ${relayStartMs} ms`)), relayStartMs);
        // A forwarder that never starts keeps no run alive.
        timer.unref();
        serveForwarder(
          channel,
          (socket) => proxy.accept(socket),
          (listening) => {
            clearTimeout(timer);
            port = listening;
            resolve();
          },
        );
      });
    let network: SharedNetwork;
    try {
      network = await share(forwarderCommand(this.node), serve);
    } catch {
      // This backend cannot share a namespace here: each sandbox gets a forwarder of its own.
      return undefined;
    }
    if (port === undefined || this.closed) {
      network.close();
      return undefined;
    }
    this.network = network;
    // A namespace whose forwarder is gone is joined no more: later sandboxes get their own.
    void network.ended.then(() => {
      if (this.network !== network) return;
      this.network = undefined;
      this.relay = Promise.resolve(undefined);
    });
    return { network, port };
  }
}
