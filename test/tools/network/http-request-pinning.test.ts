import { afterEach, describe, expect, it } from 'vitest';
import { dataOf, HostHarness } from '../host-harness.js';
import { answerLookups } from './fake-dns.js';
import { startServer, type TestServer } from './servers.js';

/**
 * The one resolution rho makes after a host is checked. `rebind.test` exists nowhere else: a
 * client that resolved it again at connect time (the system resolver) would fail.
 */
const lookups: string[] = [];
answerLookups((hostname) => {
  lookups.push(hostname);
  return hostname === 'rebind.test' ? { address: '127.0.0.1', family: 4 } : undefined;
});

let server: TestServer | undefined;
let harness: HostHarness | undefined;
afterEach(async () => {
  await server?.close();
  await harness?.dispose();
  server = harness = undefined;
  lookups.length = 0;
});

describe('http_request and DNS', () => {
  it('resolves a checked host once and connects to that address', async () => {
    server = await startServer((request, response) => response.end(`host header ${request.headers.host}`));
    const port = new URL(server.origin).port;
    // The name resolves to loopback, a special address: a rule names it too.
    harness = await HostHarness.create({ allow: ['network(rebind.test)', 'network(127.0.0.1)'] });
    const result = await harness.invoke('http_request', { url: `http://rebind.test:${port}/` });
    expect(dataOf<{ body: string }>(result).body).toBe(`host header rebind.test:${port}`);
    expect(lookups).toEqual(['rebind.test']);
  });

  it('never resolves a host the policy refused', async () => {
    harness = await HostHarness.create({ allow: [] });
    const result = await harness.invoke('http_request', { url: 'http://rebind.test:1/' });
    expect(result.status).toBe('denied');
    expect(lookups).toEqual([]);
  });
});
