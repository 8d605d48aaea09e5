import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NetworkRequest } from '../../../src/host/capability.js';
import type { SandboxCommand } from '../../../src/host/confinement/index.js';
import { ToolError } from '../../../src/host/errors.js';
import { Policy } from '../../../src/host/policy.js';
import { FilteringProxy, type ProxyChannel } from '../../../src/tools/process/network-proxy/filtering-proxy.js';
import { forwarderCommand, serveForwarder } from '../../../src/tools/process/network-proxy/forwarder.js';
import { startServer, type TestServer } from '../network/servers.js';
import { script } from './harness.js';

let dir: string;
let proxy: FilteringProxy;
let server: TestServer;
let decided: { request: NetworkRequest; decision: string }[];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rho-proxy-'));
  proxy = new FilteringProxy();
  server = await startServer((request, response) => response.end(`hello from ${request.url}`));
  decided = [];
});

afterEach(async () => {
  proxy.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** Decides as the host would, by the policy alone, and records each decision. */
function byPolicy(allow: string[]) {
  const policy = Policy.fromText({ allow });
  return async (request: NetworkRequest) => {
    const { decision } = policy.evaluate(request, dir);
    decided.push({ request, decision });
    if (decision !== 'allow') throw new ToolError('policy_denied', `network request ${request.host} was denied by policy`);
  };
}

/**
 * Runs `target` in a sandbox with no network but loopback, behind the forwarder, whose channel
 * (the spawn's IPC channel, passed through bubblewrap) leads to `channel`; resolves with what it
 * printed and its exit code.
 */
function behindForwarder(channel: ProxyChannel, target: SandboxCommand): Promise<{ stdout: string; code: number | null }> {
  const command = forwarderCommand(process.execPath);
  const sandbox = ['--die-with-parent', '--unshare-net', '--unshare-pid', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  const child = spawn('bwrap', [...sandbox, '--', command.file, ...command.args], { env: command.env, stdio: ['ignore', 'pipe', 'inherit', 'ipc'], serialization: 'json' });
  serveForwarder(child, target, channel.accept);
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ stdout, code })));
}

/** Runs the client script behind the forwarder and parses the one line it prints. */
async function confined(channel: ProxyChannel, args: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const { stdout } = await behindForwarder(channel, { file: process.execPath, args: [script('proxy-client.mjs'), ...args], env });
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('the filtering proxy, reached from a sandbox without a network', () => {
  it('reaches an allowed 127.0.0.1:PORT by plain HTTP and by CONNECT, and nothing else', async () => {
    const channel = proxy.channel(byPolicy([`network(${server.host})`]));
    expect(await confined(channel, ['get', `${server.origin}/through?x=1`])).toEqual({ status: 200, body: 'hello from /through?x=1' });
    expect(await confined(channel, ['connect', server.host])).toEqual({ status: 200, body: 'hello from /tunnelled' });
    expect(await confined(channel, ['direct', server.origin])).toEqual({ connected: false, code: 'ECONNREFUSED' });
    const port = Number(new URL(server.origin).port);
    expect(decided.map(({ request, decision }) => [request.method, request.scheme, request.hostname, request.port, decision])).toEqual([
      ['GET', 'http', '127.0.0.1', port, 'allow'],
      ['CONNECT', 'tunnel', '127.0.0.1', port, 'allow'],
    ]);
    // The Host header is the target's, whatever the client sent.
    expect(server.requests[0]?.headers.host).toBe(server.host);
  });

  it('refuses a host the policy does not allow, by both ways in, before connecting', async () => {
    const channel = proxy.channel(byPolicy(['network(127.0.0.1:1)']));
    expect(await confined(channel, ['get', `${server.origin}/`])).toMatchObject({ status: 403 });
    expect(await confined(channel, ['connect', server.host])).toEqual({ status: 403 });
    expect(server.requests).toHaveLength(0);
    expect(decided.map(({ decision }) => decision)).toEqual(['deny', 'deny']);
  });

  it('gives the program the proxy variables and its own environment, and starts the forwarder without it', async () => {
    const channel = proxy.channel(byPolicy([]));
    const seen = await confined(channel, ['env'], { GREETING: 'a b=c', NODE_OPTIONS: '--max-old-space-size=64' });
    const proxyUrl = expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(seen).toEqual({ env: { HTTP_PROXY: proxyUrl, https_proxy: proxyUrl, NO_PROXY: '', NODE_OPTIONS: '--max-old-space-size=64', GREETING: 'a b=c' } });
    // A preload that cannot load would stop the forwarder's own Node; it reaches only the program.
    const run = await behindForwarder(channel, { file: '/bin/sh', args: ['-c', 'echo "$NODE_OPTIONS"'], env: { NODE_OPTIONS: '--require /nonexistent.cjs' } });
    expect(run.stdout.trim()).toBe('--require /nonexistent.cjs');
    // Nothing of the program is on the forwarder's argv or in its environment.
    const command = forwarderCommand(process.execPath);
    expect(command.env).toEqual({});
    expect(command.args.join(' ')).not.toContain('NODE_OPTIONS');
  });

  it('answers 400 to what is not a proxy request, and decides nothing for it', async () => {
    const channel = proxy.channel(byPolicy(['network']));
    // Connections handed to the channel as a forwarder would hand them, here from a loopback port of the test's own.
    const entry = createServer((socket) => channel.accept(socket));
    await new Promise<void>((resolve) => entry.listen(0, '127.0.0.1', resolve));
    const port = (entry.address() as AddressInfo).port;
    const statusOf = (requestPath: string, method = 'GET') =>
      new Promise<number | undefined>((resolve, reject) => {
        const sent = request({ host: '127.0.0.1', port, path: requestPath, method, agent: false }, (response) => {
          response.resume();
          resolve(response.statusCode);
        });
        sent.on('connect', (response, socket) => {
          socket.destroy();
          resolve(response.statusCode);
        });
        sent.on('error', reject);
        sent.end();
      });
    try {
      expect(await statusOf('/origin-form')).toBe(400);
      expect(await statusOf(`https://${server.host}/`)).toBe(400);
      expect(await statusOf('no-port.example', 'CONNECT')).toBe(400);
      expect(decided).toEqual([]);
    } finally {
      await new Promise((resolve) => entry.close(resolve));
    }
  });

  it("passes the program's exit code through, and closes the channel's connections with it", async () => {
    const channel = proxy.channel(byPolicy([`network(${server.host})`]));
    expect((await behindForwarder(channel, { file: '/bin/sh', args: ['-c', 'exit 7'], env: {} })).code).toBe(7);
    // A connection that arrives after the channel closed is closed at once.
    channel.close();
    expect(await confined(channel, ['get', `${server.origin}/late`])).toEqual({ error: 'ECONNRESET' });
    expect(server.requests).toHaveLength(0);
  });
});
