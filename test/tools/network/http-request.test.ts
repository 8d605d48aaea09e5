import { contentDigest } from '../../../src/host/fingerprint.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/host/approval.js';
import { dataOf, HostHarness } from '../host-harness.js';
import { startServer, type TestServer } from './servers.js';

const servers: TestServer[] = [];
let harness: HostHarness | undefined;

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await harness?.dispose();
  harness = undefined;
});

async function server(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const started = await startServer(handler);
  servers.push(started);
  return started;
}

const hello = () =>
  server((request, response) => {
    response.setHeader('content-type', 'application/json');
    response.setHeader('set-cookie', 'session=abcdef; HttpOnly');
    response.end(JSON.stringify({ path: request.url, method: request.method }));
  });

function redirecting(status: number, location: () => string) {
  return server((_request, response) => {
    response.statusCode = status;
    response.setHeader('location', location());
    response.end();
  });
}

interface HttpData {
  status: number;
  headers: Record<string, string>;
  body: string;
  truncated: boolean;
  json?: unknown;
}

describe('http_request', () => {
  it('sends the request and returns status, bounded headers, body and parsed JSON', async () => {
    const api = await hello();
    harness = await HostHarness.create({ allow: [`network(${api.host})`] });
    const result = await harness.invoke('http_request', { url: `${api.origin}/items?token=s3cret-query` });
    const data = dataOf<HttpData>(result);
    expect(data.status).toBe(200);
    expect(data.json).toEqual({ path: '/items?token=s3cret-query', method: 'GET' });
    expect(data.body).toBe(JSON.stringify(data.json));
    expect(data.headers['content-type']).toBe('application/json');
    expect(data.headers['set-cookie']).toBe('[redacted]');
    expect(data.truncated).toBe(false);
    expect(result.output?.metadata).toEqual({ method: 'GET', url: `${api.origin}/items`, status: 200, redirects: [] });
  });

  it('is refused by default and sends nothing; the message says how to grant it and shows no query', async () => {
    const api = await hello();
    harness = await HostHarness.create();
    const result = await harness.invoke('http_request', { url: `${api.origin}/x?key=s3cret-query` });
    expect(result.status).toBe('denied');
    expect(result.error?.kind).toBe('policy_denied');
    expect(result.error?.message).toContain(`network(${api.host})`);
    expect(result.error?.message).not.toContain('s3cret-query');
    expect(api.requests).toHaveLength(0);
  });

  it('refuses URLs with user info before anything is authorized or sent', async () => {
    const api = await hello();
    harness = await HostHarness.create({ allow: ['network'] });
    const result = await harness.invoke('http_request', { url: `http://admin:hunter22@${api.host}/` });
    expect(result.error?.kind).toBe('invalid_arguments');
    expect(result.error?.message).toMatch(/user info/);
    expect(result.error?.message).not.toContain('hunter22');
    expect(api.requests).toHaveLength(0);
    expect(harness.events.some((event) => event.type === 'approval_decided')).toBe(false);
  });

  it('follows a redirect to an allowed URL, authorizing each hop', async () => {
    const api = await hello();
    const front = await redirecting(302, () => `${api.origin}/landed?x=1`);
    harness = await HostHarness.create({ allow: [`network(${front.host})`, `network(${api.host})`] });
    const result = await harness.invoke('http_request', { url: `${front.origin}/start` });
    expect(dataOf<HttpData>(result).json).toEqual({ path: '/landed?x=1', method: 'GET' });
    expect(result.output?.metadata?.['redirects']).toEqual([`${api.origin}/landed`]);
    const decisions = harness.events.filter((event) => event.type === 'approval_decided');
    expect(decisions.map((event) => event.type === 'approval_decided' && [event.class, event.result])).toEqual([
      ['network', 'allow'],
      ['network', 'allow'],
    ]);
  });

  it('refuses a redirect from an allowed host to a denied one before following it', async () => {
    const target = await hello();
    const front = await redirecting(301, () => `${target.origin}/stolen?secret=s3cret-query`);
    harness = await HostHarness.create({ allow: [`network(${front.host})`] });
    const result = await harness.invoke('http_request', { url: `${front.origin}/` });
    expect(result.status).toBe('denied');
    expect(result.error?.kind).toBe('policy_denied');
    expect(result.error?.message).toContain(`network(${target.host})`);
    expect(result.error?.message).not.toContain('s3cret-query');
    expect(front.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });

  it('asks about a redirect target before following it, and stops when the answer is no', async () => {
    const target = await hello();
    const front = await redirecting(307, () => `${target.origin}/next`);
    const asked: ApprovalRequest[] = [];
    harness = await HostHarness.create({
      allow: [`network(${front.host})`],
      ask: [`network(${target.host})`],
      approver: {
        async approve(request) {
          asked.push(request);
          expect(target.requests).toHaveLength(0);
          return 'deny';
        },
      },
    });
    const result = await harness.invoke('http_request', { url: `${front.origin}/`, method: 'POST', body: 'payload' });
    expect(result.error?.kind).toBe('approval_denied');
    expect(asked.map((request) => request.request)).toEqual([
      {
        class: 'network',
        method: 'POST',
        scheme: 'http',
        host: target.host,
        hostname: '127.0.0.1',
        port: Number(new URL(target.origin).port),
        url: `${target.origin}/next`,
        // A 307 keeps the body: the prompt says it will be sent again.
        preview: { queryNames: [], bodyBytes: 7, credentialHeaders: [], headerNames: [] },
        headers: [],
        bodyDigest: contentDigest('payload'),
      },
    ]);
    expect(target.requests).toHaveLength(0);
  });

  it('refuses redirects to user-info URLs and to other schemes without requesting them', async () => {
    const api = await hello();
    const withUser = await redirecting(302, () => `http://root:hunter22@${api.host}/`);
    const toFtp = await redirecting(302, () => `ftp://${api.host}/file`);
    harness = await HostHarness.create({ allow: ['network'] });
    const first = await harness.invoke('http_request', { url: `${withUser.origin}/` });
    expect(first.error?.message).toMatch(/redirected to a location rho refuses: URL refused: it carries user info/);
    expect(first.error?.message).not.toContain('hunter22');
    const second = await harness.invoke('http_request', { url: `${toFtp.origin}/` });
    expect(second.error?.message).toMatch(/only http and https/);
    expect(api.requests).toHaveLength(0);
  });

  it('keeps credentials on same-origin redirects and drops them when the origin changes', async () => {
    const other = await hello();
    let hops = 0;
    const front = await server((_request, response) => {
      response.statusCode = 302;
      response.setHeader('location', hops++ === 0 ? '/again' : `${other.origin}/elsewhere`);
      response.end();
    });
    harness = await HostHarness.create({ allow: [`network(${front.host})`, `network(${other.host})`] });
    const credentials = {
      Authorization: 'Bearer s3cret-token',
      Cookie: 'sid=s3cret-cookie',
      'X-Api-Key': 's3cret-key',
      'Private-Token': 's3cret-private',
      'X-Amz-Security-Token': 's3cret-amz',
      'Ocp-Apim-Subscription-Key': 's3cret-sub',
      'X-Session-Id': 's3cret-session',
    };
    const headers = { ...credentials, 'X-Trace': 'kept', Accept: 'application/json' };
    dataOf(await harness.invoke('http_request', { url: `${front.origin}/`, headers }));
    expect(front.requests.map((request) => request.headers['authorization'])).toEqual(['Bearer s3cret-token', 'Bearer s3cret-token']);
    expect(front.requests[1]?.headers['x-api-key']).toBe('s3cret-key');
    for (const name of Object.keys(credentials)) expect(other.requests[0]?.headers[name.toLowerCase()], name).toBeUndefined();
    expect(other.requests[0]?.headers['x-trace']).toBe('kept');
    expect(other.requests[0]?.headers['accept']).toBe('application/json');
    const logged = JSON.stringify(harness.events);
    expect(logged).not.toContain('s3cret-token');
    expect(logged).not.toContain('s3cret-cookie');
  });

  it('turns a POST into a GET without body on 303, and keeps method and body on 307', async () => {
    const api = await hello();
    const seeOther = await redirecting(303, () => `${api.origin}/after-303`);
    const temporary = await redirecting(307, () => `${api.origin}/after-307`);
    harness = await HostHarness.create({ allow: ['network'] });
    await harness.invoke('http_request', { url: `${seeOther.origin}/`, method: 'POST', json: { a: 1 } });
    await harness.invoke('http_request', { url: `${temporary.origin}/`, method: 'POST', json: { a: 1 } });
    expect(api.requests.map((request) => [request.url, request.method, request.body, request.headers['content-type']])).toEqual([
      ['/after-303', 'GET', '', undefined],
      ['/after-307', 'POST', '{"a":1}', 'application/json'],
    ]);
  });

  it('stops after max_redirects and, with follow_redirects false, reports the redirect itself', async () => {
    const loop = await server((request, response) => {
      response.statusCode = 302;
      response.setHeader('location', `/hop${request.url.length}`);
      response.end();
    });
    harness = await HostHarness.create({ allow: [`network(${loop.host})`] });
    const looped = await harness.invoke('http_request', { url: `${loop.origin}/`, max_redirects: 2 });
    expect(looped.error?.message).toMatch(/redirected more than 2 times/);
    expect(loop.requests).toHaveLength(3);
    const unfollowed = await harness.invoke('http_request', { url: `${loop.origin}/`, follow_redirects: false, ok_status: [302] });
    expect(dataOf<HttpData>(unfollowed).status).toBe(302);
  });

  it('caps the response body and the returned headers', async () => {
    const big = await server((_request, response) => {
      for (let index = 0; index < 150; index++) response.setHeader(`x-h${index}`, 'v');
      response.end('x'.repeat(100_000));
    });
    harness = await HostHarness.create({ allow: [`network(${big.host})`] });
    const data = dataOf<HttpData>(await harness.invoke('http_request', { url: big.origin, max_response_bytes: 1000 }));
    expect(data.body).toHaveLength(1000);
    expect(data.truncated).toBe(true);
    expect(Object.keys(data.headers).length).toBeLessThanOrEqual(100);
  });

  it('times out a server that never answers, with its own timeout and the call timeout', async () => {
    const silent = await server(() => {});
    harness = await HostHarness.create({ allow: [`network(${silent.host})`] });
    const own = await harness.invoke('http_request', { url: `${silent.origin}/slow?q=s3cret-query`, timeout: 0.2 });
    expect(own.error?.kind).toBe('timeout');
    expect(own.error?.message).toBe(`GET ${silent.origin}/slow did not complete within 0.2s`);
    const call = await harness.invoke('http_request', { url: silent.origin }, { timeoutMs: 200 });
    expect(call.error?.kind).toBe('timeout');
  });

  it('fails on statuses outside ok_status (default 2xx) and accepts listed ones', async () => {
    const missing = await server((_request, response) => {
      response.statusCode = 404;
      response.end('nope');
    });
    harness = await HostHarness.create({ allow: [`network(${missing.host})`] });
    const failed = await harness.invoke('http_request', { url: `${missing.origin}/a?q=s3cret-query` });
    expect(failed.error?.kind).toBe('execution_failed');
    expect(failed.error?.message).toBe(`GET ${missing.origin}/a answered 404; to accept it, add ok_status: [404]`);
    expect(dataOf<HttpData>(await harness.invoke('http_request', { url: missing.origin, ok_status: [404] })).body).toBe('nope');
  });

  it('reports a refused connection by its code, without the query', async () => {
    const gone = await hello();
    await gone.close();
    harness = await HostHarness.create({ allow: [`network(${gone.host})`] });
    const result = await harness.invoke('http_request', { url: `${gone.origin}/?q=s3cret-query` });
    expect(result.error?.message).toBe(`GET ${gone.origin}/ failed: ECONNREFUSED`);
  });

  it.each([
    [{ url: 'http://127.0.0.1/', body: 'x' }, 'a GET request has no body'],
    [{ url: 'http://127.0.0.1/', method: 'POST', body: 'x', json: {} }, 'give body or json, not both'],
    [{ url: 'http://127.0.0.1/', headers: { Host: 'evil.example' } }, 'host is set by rho itself'],
    [{ url: 'http://127.0.0.1/', headers: { 'X-A': 'a\r\nInjected: yes' } }, 'cannot contain line breaks'],
    [{ url: 'http://127.0.0.1/', headers: { 'bad header': 'x' } }, 'not a valid header name'],
    [{ url: 'http://127.0.0.1/', headers: { Accept: 'a', accept: 'b' } }, 'accept is given more than once'],
    [{ url: 'http://127.0.0.1/', method: 'TRACE' }, 'method'],
    [{ url: 'ftp://127.0.0.1/' }, 'only http and https'],
  ])('refuses arguments %j while preparing', async (args, message) => {
    harness = await HostHarness.create({ allow: ['network'] });
    const result = await harness.invoke('http_request', args);
    expect(result.error?.kind).toBe('invalid_arguments');
    expect(result.error?.message).toContain(message);
  });
});
