import { afterEach, describe, expect, it } from 'vitest';
import { dataOf, HostHarness } from '../host-harness.js';
import { answerLookups } from './fake-dns.js';
import { startServer, type TestServer } from './servers.js';

/**
 * Names whose DNS answer is a special address. There is no DNS here, so the resolver answers
 * for these names as a hostile or misconfigured DNS server would; `loop.test` leads to the
 * local test server, so an address that is let through really is reached.
 */
const answers: Record<string, string> = {
  'metadata.test': '169.254.169.254',
  'intranet.test': '10.1.2.3',
  'loop.test': '127.0.0.1',
  'mapped.test': '::ffff:127.0.0.1',
  'sinkhole.test': '0.0.0.0',
};
answerLookups((hostname) => {
  const address = answers[hostname];
  return address === undefined ? undefined : { address, family: address.includes(':') ? 6 : 4 };
});

let server: TestServer | undefined;
let harness: HostHarness | undefined;
afterEach(async () => {
  await server?.close();
  await harness?.dispose();
  server = harness = undefined;
});

async function fetchAs(rules: { allow: string[]; deny?: string[] }, url: (port: string) => string) {
  server ??= await startServer((_request, response) => response.end('reached'));
  harness = await HostHarness.create(rules);
  return harness.invoke('http_request', { url: url(new URL(server.origin).port) });
}

describe('http_request to a name that resolves to a special address', () => {
  it.each([
    ['metadata.test', '169.254.169.254', 'link-local'],
    ['intranet.test', '10.1.2.3', 'private'],
    ['loop.test', '127.0.0.1', 'loopback'],
    ['mapped.test', '127.0.0.1', 'loopback'],
  ])('refuses %s (%s) when no rule names the address, naming the rule that would', async (name, address, kind) => {
    const result = await fetchAs({ allow: [`network(${name})`] }, (port) => `http://${name}:${port}/`);
    expect(result.status).toBe('denied');
    expect(result.error?.message).toContain(`${name} resolved to ${address}, a ${kind} address`);
    expect(result.error?.message).toContain(`network(${address}:`);
    expect(server!.requests).toHaveLength(0);
    expect(harness!.events.filter((event) => event.type === 'approval_decided').map((event) => (event as { result: string }).result)).toEqual(['allow', 'deny']);
  });

  it('reaches the address when a rule names it, its range, or localhost for loopback', async () => {
    for (const rule of ['network(127.0.0.1)', 'network(127.0.0.0/8)', 'network(localhost)', 'network']) {
      const result = await fetchAs({ allow: ['network(loop.test)', rule] }, (port) => `http://loop.test:${port}/`);
      expect(dataOf<{ body: string }>(result).body, rule).toBe('reached');
      await harness!.dispose();
    }
  });

  it('a deny naming the address wins over the name, whatever the unrestricted rule allows', async () => {
    for (const deny of ['network(127.0.0.1)', 'network(localhost)', 'network(127.0.0.0/8)']) {
      const result = await fetchAs({ allow: ['network'], deny: [deny] }, (port) => `http://loop.test:${port}/`);
      expect(result.status, deny).toBe('denied');
      expect(result.error?.message).toContain(`the rule deny: ${deny} matches`);
      await harness!.dispose();
    }
    expect(server!.requests).toHaveLength(0);
  });

  it('never connects to the unspecified address, by name or literally', async () => {
    for (const url of [(port: string) => `http://sinkhole.test:${port}/`, (port: string) => `http://0.0.0.0:${port}/`]) {
      const result = await fetchAs({ allow: ['network'] }, url);
      expect(result.status).toBe('failure');
      expect(result.error?.message).toMatch(/the unspecified address, which reaches this machine/);
      await harness!.dispose();
    }
  });
});

describe('http_request to a spelling of a denied address', () => {
  it.each(['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '2130706433', '0x7f.1', '127.1', '0177.0.0.1', '[0:0:0:0:0:ffff:7f00:1]'])(
    'deny: network(127.0.0.1) refuses %s',
    async (spelling) => {
      const result = await fetchAs({ allow: ['network'], deny: ['network(127.0.0.1)'] }, (port) => `http://${spelling}:${port}/`);
      expect(result.status).toBe('denied');
      expect(result.error?.message).toContain('the rule deny: network(127.0.0.1) matches');
      expect(server!.requests).toHaveLength(0);
    },
  );

  it('deny: network(169.254.169.254) refuses the mapped form, and a name with a trailing dot is the name', async () => {
    const mapped = await fetchAs({ allow: ['network'], deny: ['network(169.254.169.254)'] }, () => 'http://[::ffff:a9fe:a9fe]/latest/meta-data');
    expect(mapped.error?.message).toContain('the rule deny: network(169.254.169.254) matches');
    await harness!.dispose();
    const dotted = await fetchAs({ allow: ['network'], deny: ['network(metadata.test)'] }, () => 'http://METADATA.test./');
    expect(dotted.error?.message).toContain('the rule deny: network(metadata.test) matches');
  });
});
