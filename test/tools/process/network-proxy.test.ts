import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NetworkRequest } from '../../../src/host/capability.js';
import { ToolError } from '../../../src/host/errors.js';
import { Policy } from '../../../src/host/policy.js';
import { FilteringProxy } from '../../../src/tools/process/network-proxy/filtering-proxy.js';
import { forwardedCommand } from '../../../src/tools/process/network-proxy/forwarder.js';
import { startServer, type TestServer } from '../network/servers.js';
import { script } from './harness.js';

const run = promisify(execFile);

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

/** Runs the client script in a sandbox with no network but loopback, through the forwarder. */
async function confined(socketPath: string, args: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const command = forwardedCommand(process.execPath, socketPath, { file: process.execPath, args: [script('proxy-client.mjs'), ...args], env });
  const sandbox = ['--die-with-parent', '--unshare-net', '--unshare-pid', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--bind', dir, dir];
  const { stdout } = await run('bwrap', [...sandbox, '--', command.file, ...command.args], { env: command.env });
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('the filtering proxy, reached from a sandbox without a network', () => {
  it('reaches an allowed 127.0.0.1:PORT by plain HTTP and by CONNECT, and nothing else', async () => {
    const listener = proxy.listen(path.join(dir, 'proxy.sock'), byPolicy([`network(${server.host})`]));
    expect(await confined(listener.socketPath, ['get', `${server.origin}/through?x=1`])).toEqual({ status: 200, body: 'hello from /through?x=1' });
    expect(await confined(listener.socketPath, ['connect', server.host])).toEqual({ status: 200, body: 'hello from /tunnelled' });
    expect(await confined(listener.socketPath, ['direct', server.origin])).toEqual({ connected: false, code: 'ECONNREFUSED' });
    const port = Number(new URL(server.origin).port);
    expect(decided.map(({ request, decision }) => [request.method, request.scheme, request.hostname, request.port, decision])).toEqual([
      ['GET', 'http', '127.0.0.1', port, 'allow'],
      ['CONNECT', 'tunnel', '127.0.0.1', port, 'allow'],
    ]);
    // The Host header is the target's, whatever the client sent.
    expect(server.requests[0]?.headers.host).toBe(server.host);
  });

  it('refuses a host the policy does not allow, by both ways in, before connecting', async () => {
    const listener = proxy.listen(path.join(dir, 'proxy.sock'), byPolicy(['network(127.0.0.1:1)']));
    expect(await confined(listener.socketPath, ['get', `${server.origin}/`])).toMatchObject({ status: 403 });
    expect(await confined(listener.socketPath, ['connect', server.host])).toEqual({ status: 403 });
    expect(server.requests).toHaveLength(0);
    expect(decided.map(({ decision }) => decision)).toEqual(['deny', 'deny']);
  });

  it('gives the program the proxy variables and its own environment, and starts the forwarder without it', async () => {
    const listener = proxy.listen(path.join(dir, 'proxy.sock'), byPolicy([]));
    const seen = await confined(listener.socketPath, ['env'], { GREETING: 'a b=c', NODE_OPTIONS: '--max-old-space-size=64' });
    const proxyUrl = expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(seen).toEqual({ env: { HTTP_PROXY: proxyUrl, https_proxy: proxyUrl, NO_PROXY: '', NODE_OPTIONS: '--max-old-space-size=64', GREETING: 'a b=c' } });
    // A preload that cannot load would stop the forwarder's own Node; it reaches only the program.
    const command = forwardedCommand(process.execPath, listener.socketPath, {
      file: '/bin/sh',
      args: ['-c', 'echo "$NODE_OPTIONS"'],
      env: { NODE_OPTIONS: '--require /nonexistent.cjs' },
    });
    const sandbox = ['--die-with-parent', '--unshare-net', '--ro-bind', '/', '/', '--dev', '/dev', '--bind', dir, dir];
    const { stdout } = await run('bwrap', [...sandbox, '--', command.file, ...command.args], { env: command.env });
    expect(stdout.trim()).toBe('--require /nonexistent.cjs');
  });

  it('answers 400 to what is not a proxy request, and decides nothing for it', async () => {
    const listener = proxy.listen(path.join(dir, 'proxy.sock'), byPolicy(['network']));
    const statusOf = (requestPath: string, method = 'GET') =>
      new Promise<number | undefined>((resolve, reject) => {
        const sent = request({ socketPath: listener.socketPath, path: requestPath, method }, (response) => {
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
    expect(await statusOf('/origin-form')).toBe(400);
    expect(await statusOf(`https://${server.host}/`)).toBe(400);
    expect(await statusOf('no-port.example', 'CONNECT')).toBe(400);
    expect(decided).toEqual([]);
  });

  it("passes the program's exit code through, and removes the socket when the listener closes", async () => {
    const listener = proxy.listen(path.join(dir, 'proxy.sock'), byPolicy([]));
    const command = forwardedCommand(process.execPath, listener.socketPath, { file: '/bin/sh', args: ['-c', 'exit 7'], env: {} });
    const sandbox = ['--die-with-parent', '--unshare-net', '--ro-bind', '/', '/', '--dev', '/dev', '--bind', dir, dir];
    await expect(run('bwrap', [...sandbox, '--', command.file, ...command.args], { env: command.env })).rejects.toMatchObject({ code: 7 });
    listener.close();
    await expect(run('test', ['-e', listener.socketPath])).rejects.toMatchObject({ code: 1 });
  });
});
