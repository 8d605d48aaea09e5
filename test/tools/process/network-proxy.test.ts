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
import { FilteringProxy, type ProxyAdmission } from '../../../src/tools/process/network-proxy/filtering-proxy.js';
import { forwarderCommand, serveForwarder, startBehindForwarder } from '../../../src/tools/process/network-proxy/forwarder.js';
import { proxyVariables } from '../../../src/tools/process/network-proxy/proxy-credentials.js';
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
 * (the spawn's IPC channel, passed through bubblewrap) leads to the proxy, with the proxy
 * variables of `admission`; resolves with what it printed and its exit code.
 */
function behindForwarder(admission: ProxyAdmission, target: SandboxCommand): Promise<{ stdout: string; code: number | null }> {
  const command = forwarderCommand(process.execPath);
  const sandbox = ['--die-with-parent', '--unshare-net', '--unshare-pid', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  const child = spawn('bwrap', [...sandbox, '--', command.file, ...command.args], { env: command.env, stdio: ['ignore', 'pipe', 'inherit', 'ipc'], serialization: 'json' });
  serveForwarder(
    child,
    (socket) => proxy.accept(socket),
    (port) => startBehindForwarder(child, { ...target, env: { ...target.env, ...proxyVariables(port, admission.token) } }),
  );
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ stdout, code })));
}

/** Runs the client script behind the forwarder and parses the one line it prints. */
async function confined(admission: ProxyAdmission, args: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const { stdout } = await behindForwarder(admission, { file: process.execPath, args: [script('proxy-client.mjs'), ...args], env });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** A loopback port of the test's own whose connections are handed to the proxy, as a forwarder hands them; closed after the test. */
async function entry(): Promise<{ port: number; close(): Promise<void> }> {
  const listening = createServer((socket) => proxy.accept(socket));
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return { port: (listening.address() as AddressInfo).port, close: () => new Promise((resolve) => listening.close(() => resolve())) };
}

/** Sends one request to the proxy at `port` with `headers`; resolves with its status and the challenge of a 407. */
function ask(port: number, options: { path: string; method?: string; headers?: Record<string, string> }): Promise<{ status: number | undefined; challenge?: string }> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, path: options.path, method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false }, (response) => {
      response.resume();
      const challenge = response.headers['proxy-authenticate'];
      resolve({ status: response.statusCode, ...(challenge && { challenge }) });
    });
    sent.on('connect', (response, socket) => {
      socket.destroy();
      const challenge = response.headers['proxy-authenticate'];
      resolve({ status: response.statusCode, ...(typeof challenge === 'string' && { challenge }) });
    });
    sent.on('error', reject);
    sent.end();
  });
}

const basic = (credentials: string) => ({ 'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}` });

describe('the filtering proxy, reached from a sandbox without a network', () => {
  it('reaches an allowed 127.0.0.1:PORT by plain HTTP and by CONNECT, and nothing else', async () => {
    const admission = proxy.admit(byPolicy([`network(${server.host})`]));
    expect(await confined(admission, ['get', `${server.origin}/through?x=1`])).toEqual({ status: 200, body: 'hello from /through?x=1' });
    expect(await confined(admission, ['connect', server.host])).toEqual({ status: 200, body: 'hello from /tunnelled' });
    expect(await confined(admission, ['direct', server.origin])).toEqual({ connected: false, code: 'ECONNREFUSED' });
    const port = Number(new URL(server.origin).port);
    expect(decided.map(({ request, decision }) => [request.method, request.scheme, request.hostname, request.port, decision])).toEqual([
      ['GET', 'http', '127.0.0.1', port, 'allow'],
      ['CONNECT', 'tunnel', '127.0.0.1', port, 'allow'],
    ]);
    // The Host header is the target's, whatever the client sent; the proxy's credentials stay with the proxy.
    expect(server.requests[0]?.headers.host).toBe(server.host);
    expect(server.requests[0]?.headers['proxy-authorization']).toBeUndefined();
  });

  it('refuses a host the policy does not allow, by both ways in, before connecting', async () => {
    const admission = proxy.admit(byPolicy(['network(127.0.0.1:1)']));
    expect(await confined(admission, ['get', `${server.origin}/`])).toMatchObject({ status: 403 });
    expect(await confined(admission, ['connect', server.host])).toEqual({ status: 403 });
    expect(server.requests).toHaveLength(0);
    expect(decided.map(({ decision }) => decision)).toEqual(['deny', 'deny']);
  });

  it('gives the program the proxy variables with its token and its own environment, and starts the forwarder without it', async () => {
    const admission = proxy.admit(byPolicy([]));
    const seen = await confined(admission, ['env'], { GREETING: 'a b=c', NODE_OPTIONS: '--max-old-space-size=64' });
    const proxyUrl = `http://rho:${admission.token}@127.0.0.1:`;
    expect(admission.token).toMatch(new RegExp(`^${proxy.key}[0-9a-f]{32}$`));
    expect(seen).toEqual({
      env: {
        HTTP_PROXY: expect.stringMatching(new RegExp(`^${proxyUrl}\\d+$`)),
        https_proxy: expect.stringMatching(new RegExp(`^${proxyUrl}\\d+$`)),
        NO_PROXY: '',
        NODE_OPTIONS: '--max-old-space-size=64',
        GREETING: 'a b=c',
      },
    });
    // A preload that cannot load would stop the forwarder's own Node; it reaches only the program.
    const run = await behindForwarder(admission, { file: '/bin/sh', args: ['-c', 'echo "$NODE_OPTIONS"'], env: { NODE_OPTIONS: '--require /nonexistent.cjs' } });
    expect(run.stdout.trim()).toBe('--require /nonexistent.cjs');
    // Nothing of the program is on the forwarder's argv or in its environment.
    const command = forwarderCommand(process.execPath);
    expect(command.env).toEqual({});
    expect(command.args.join(' ')).not.toContain('NODE_OPTIONS');
  });

  it('answers 400 to what is not a proxy request, and decides nothing for it', async () => {
    const admission = proxy.admit(byPolicy(['network']));
    const { port, close } = await entry();
    const headers = basic(`rho:${admission.token}`);
    try {
      expect(await ask(port, { path: '/origin-form', headers })).toEqual({ status: 400 });
      expect(await ask(port, { path: `https://${server.host}/`, headers })).toEqual({ status: 400 });
      expect(await ask(port, { path: 'no-port.example', method: 'CONNECT', headers })).toEqual({ status: 400 });
      expect(decided).toEqual([]);
    } finally {
      await close();
    }
  });

  it('answers 407 to a request without a live token, by both ways in, and decides nothing for it', async () => {
    const admission = proxy.admit(byPolicy(['network']));
    const ended = proxy.admit(byPolicy(['network']));
    ended.close();
    const { port, close } = await entry();
    const challenged = { status: 407, challenge: 'Basic realm="rho"' };
    try {
      for (const headers of [
        {},
        basic(`rho:${proxy.key}${'0'.repeat(32)}`),
        basic(`rho:${ended.token}`),
        basic(`other:${admission.token}`),
        { 'proxy-authorization': `Bearer ${admission.token}` },
      ]) {
        expect(await ask(port, { path: `${server.origin}/`, headers })).toEqual(challenged);
        expect(await ask(port, { path: server.host, method: 'CONNECT', headers })).toEqual(challenged);
      }
      expect(decided).toEqual([]);
      expect(server.requests).toHaveLength(0);
      expect(await ask(port, { path: `${server.origin}/live`, headers: basic(`rho:${admission.token}`) })).toEqual({ status: 200 });
    } finally {
      await close();
    }
  });

  it('decides each request on one entry for the process whose token it presents', async () => {
    const allowed = proxy.admit(byPolicy([`network(${server.host})`]));
    const refused = proxy.admit(byPolicy(['network(127.0.0.1:1)']));
    const { port, close } = await entry();
    try {
      expect(await ask(port, { path: `${server.origin}/allowed`, headers: basic(`rho:${allowed.token}`) })).toEqual({ status: 200 });
      expect(await ask(port, { path: `${server.origin}/refused`, headers: basic(`rho:${refused.token}`) })).toEqual({ status: 403 });
      expect(decided.map(({ decision }) => decision)).toEqual(['allow', 'deny']);
      expect(server.requests.map((seen) => seen.url)).toEqual(['/allowed']);
    } finally {
      await close();
    }
  });

  it("passes the program's exit code through; an ended token is refused, and a closed proxy closes what arrives", async () => {
    const admission = proxy.admit(byPolicy([`network(${server.host})`]));
    expect((await behindForwarder(admission, { file: '/bin/sh', args: ['-c', 'exit 7'], env: {} })).code).toBe(7);
    admission.close();
    expect(await confined(admission, ['get', `${server.origin}/ended`])).toMatchObject({ status: 407 });
    proxy.close();
    expect(await confined(admission, ['get', `${server.origin}/late`])).toEqual({ error: 'ECONNRESET' });
    expect(server.requests).toHaveLength(0);
    expect(decided).toEqual([]);
  });
});
