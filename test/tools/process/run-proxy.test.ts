import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ProxyConnection, SandboxChannel, SandboxCommand, SharedNetwork } from '../../../src/host/confinement/index.js';
import { ToolError } from '../../../src/host/errors.js';
import { SecretMasker } from '../../../src/host/masking.js';
import { RunNetworkProxy } from '../../../src/tools/process/network-proxy/run-proxy.js';

/** A shared namespace whose forwarder says it listens on 4321 as soon as it is served; `end` is its first process ending. */
function fakeNetwork(): SharedNetwork & { end(): void; closed: boolean } {
  const channel = Object.assign(new EventEmitter(), { send: () => true }) as EventEmitter & SandboxChannel;
  let end = () => {};
  const ended = new Promise<void>((resolve) => (end = resolve));
  setImmediate(() => channel.emit('message', { type: 'listening', port: 4321 }));
  const network = {
    channel,
    ended,
    closed: false,
    end,
    enter: (file: string, args: readonly string[]) => ({ file, args }),
    close: () => {
      network.closed = true;
      end();
    },
  };
  return network;
}

const allowAll = async () => {};

/** A backend's sharing that starts `network`: it serves the forwarder's channel and waits until it is ready, as a backend does. */
const sharing = (network: SharedNetwork) => async (_forwarder: SandboxCommand, serve: (channel: SandboxChannel) => Promise<void>) => {
  await serve(network.channel);
  return network;
};

let proxy: RunNetworkProxy | undefined;
afterEach(() => proxy?.close());

function shared(connection: ProxyConnection) {
  if (connection.route.kind !== 'shared') throw new ToolError('internal', `expected the shared route, got ${connection.route.kind}`);
  return connection.route;
}

describe("the run's network proxy", () => {
  it('starts one shared namespace for the whole run, and gives each process a token of its own there, masked', async () => {
    const masker = new SecretMasker();
    proxy = new RunNetworkProxy({ masker });
    const network = fakeNetwork();
    const share = vi.fn(sharing(network));
    const endpoint = proxy.endpoint(allowAll);
    const [first, second] = [shared(await endpoint.open(share)), shared(await endpoint.open(share))];
    expect(share).toHaveBeenCalledTimes(1);
    expect(first.network).toBe(network);
    expect(second.network).toBe(network);
    const url = /^http:\/\/rho:([0-9a-f]{64})@127\.0\.0\.1:4321$/;
    expect(first.variables).toEqual({
      HTTP_PROXY: expect.stringMatching(url),
      HTTPS_PROXY: first.variables.HTTP_PROXY,
      http_proxy: first.variables.HTTP_PROXY,
      https_proxy: first.variables.HTTP_PROXY,
      NO_PROXY: '',
      no_proxy: '',
    });
    const [firstToken, secondToken] = [first, second].map((route) => url.exec(route.variables.HTTP_PROXY!)![1]!);
    expect(firstToken).not.toBe(secondToken);
    expect(masker.mask(`${firstToken} ${secondToken}`)).not.toMatch(/[0-9a-f]{64}/);
    proxy.close();
    expect(network.closed).toBe(true);
  });

  it('gives each process a forwarder of its own where the backend cannot share a namespace, and asks it once', async () => {
    proxy = new RunNetworkProxy();
    const share = vi.fn(async (): Promise<SharedNetwork> => {
      throw new ToolError('unsupported', 'no nsenter here');
    });
    const endpoint = proxy.endpoint(allowAll);
    expect((await endpoint.open(share)).route.kind).toBe('forwarder');
    expect((await endpoint.open(share)).route.kind).toBe('forwarder');
    expect((await endpoint.open()).route.kind).toBe('forwarder');
    expect(share).toHaveBeenCalledTimes(1);
  });

  it('joins a namespace no more once its forwarder is gone', async () => {
    proxy = new RunNetworkProxy();
    const network = fakeNetwork();
    const endpoint = proxy.endpoint(allowAll);
    expect((await endpoint.open(sharing(network))).route.kind).toBe('shared');
    network.end();
    await network.ended;
    await new Promise((resolve) => setImmediate(resolve));
    expect((await endpoint.open(sharing(fakeNetwork()))).route.kind).toBe('forwarder');
  });
});
