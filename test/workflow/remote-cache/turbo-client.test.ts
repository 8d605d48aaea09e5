import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkRequest } from '../../../src/host/capability.js';
import { parseRemoteCacheSettings } from '../../../src/workflow/up-to-date/remote/config.js';
import { artifactTag, TurboCacheClient, type RequestGate } from '../../../src/workflow/up-to-date/remote/turbo-client.js';

type Handler = (request: IncomingMessage, response: ServerResponse, body: Buffer) => void;
let handler: Handler = (_request, response) => response.end();
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      handler(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const hash = 'ab'.repeat(32);
const asked: NetworkRequest[] = [];
const granted: RequestGate = {
  signal: new AbortController().signal,
  authorize: (request) => {
    asked.push(request);
    return Promise.resolve(undefined);
  },
};

function client(env: Record<string, string> = {}, api = base): TurboCacheClient {
  return new TurboCacheClient(parseRemoteCacheSettings({}, { TURBO_API: api, TURBO_TOKEN: 'secret-token', TURBO_TEAM: 'web', ...env })!);
}

describe('TurboCacheClient', () => {
  it('puts each request to the policy as network(HOST), then sends the v8 request with the bearer token and team', async () => {
    handler = (_request, response) => response.end('artifact');
    asked.length = 0;
    seen.length = 0;
    expect(await client().fetch(hash, granted)).toEqual({ kind: 'hit', body: Buffer.from('artifact') });
    expect(asked).toEqual([expect.objectContaining({ class: 'network', method: 'GET', hostname: '127.0.0.1', url: `${base}/v8/artifacts/${hash}` })]);
    expect(seen[0]).toMatchObject({ method: 'GET', url: `/v8/artifacts/${hash}?slug=web`, headers: expect.objectContaining({ authorization: 'Bearer secret-token' }) });
    await client({ TURBO_TEAM: 'team_123' }).upload(hash, Buffer.from('body'), 1234.4, granted);
    expect(seen[1]).toMatchObject({
      method: 'PUT',
      url: `/v8/artifacts/${hash}?teamId=team_123`,
      body: Buffer.from('body'),
      headers: expect.objectContaining({ 'x-artifact-duration': '1234' }),
    });
  });

  it('sends nothing when the policy refuses, and says the refusal lasts', async () => {
    seen.length = 0;
    const denied: RequestGate = { signal: granted.signal, authorize: () => Promise.resolve('network(127.0.0.1) is denied') };
    expect(await client().fetch(hash, denied)).toEqual({ kind: 'failed', problem: { reason: 'network(127.0.0.1) is denied', lasting: true } });
    expect(seen).toEqual([]);
  });

  it('tells a miss from a refused token, a server error and a redirect', async () => {
    const answer = (status: number) => (handler = (_request, response) => response.writeHead(status, status === 302 ? { location: 'http://elsewhere.example/' } : {}).end());
    answer(404);
    expect(await client().fetch(hash, granted)).toEqual({ kind: 'miss' });
    answer(401);
    expect(await client().fetch(hash, granted)).toMatchObject({ kind: 'failed', problem: { reason: expect.stringContaining('refused the token (HTTP 401)'), lasting: true } });
    answer(503);
    expect(await client().fetch(hash, granted)).toMatchObject({ kind: 'failed', problem: { reason: 'the server answered HTTP 503', lasting: false } });
    expect(await client().upload(hash, Buffer.from('x'), 0, granted)).toMatchObject({ reason: 'the server answered HTTP 503' });
    answer(302);
    expect(await client().fetch(hash, granted)).toMatchObject({ kind: 'failed', problem: { reason: expect.stringContaining('redirect'), lasting: true } });
  });

  it('gives up on a server that does not answer within the timeout', async () => {
    handler = () => {};
    expect(await client({ TURBO_REMOTE_CACHE_TIMEOUT: '0.2' }).fetch(hash, granted)).toMatchObject({
      kind: 'failed',
      problem: { reason: 'no answer within 0.2s (TURBO_REMOTE_CACHE_TIMEOUT)', lasting: true },
    });
  });

  it('says so when the server cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await client({}, `http://127.0.0.1:${port}`).fetch(hash, granted)).toMatchObject({
      kind: 'failed',
      problem: { reason: expect.stringContaining('could not be reached'), lasting: true },
    });
  });

  it('with a signature key, signs uploads and refuses artifacts whose tag is missing or wrong', async () => {
    const key = { TURBO_REMOTE_CACHE_SIGNATURE_KEY: 'team key' };
    seen.length = 0;
    handler = (_request, response) => response.end();
    await client(key).upload(hash, Buffer.from('signed body'), 0, granted);
    expect(seen[0]!.headers['x-artifact-tag']).toBe(artifactTag('team key', hash, 'web', Buffer.from('signed body')));

    let tag: string | undefined = artifactTag('team key', hash, 'web', Buffer.from('signed body'));
    handler = (_request, response) => response.writeHead(200, tag === undefined ? {} : { 'x-artifact-tag': tag }).end('signed body');
    expect(await client(key).fetch(hash, granted)).toEqual({ kind: 'hit', body: Buffer.from('signed body') });
    tag = artifactTag('another key', hash, 'web', Buffer.from('signed body'));
    expect(await client(key).fetch(hash, granted)).toMatchObject({ kind: 'failed', problem: { reason: expect.stringContaining('signature') } });
    tag = undefined;
    expect(await client(key).fetch(hash, granted)).toMatchObject({ kind: 'failed', problem: { reason: expect.stringContaining('signature') } });
    expect(await client().fetch(hash, granted)).toMatchObject({ kind: 'hit' });
  });
});
