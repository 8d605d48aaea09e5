import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretMasker } from '../../src/host/masking.js';
import { dataOf, HostHarness, hostAndServerPerTest } from './host-harness.js';
import { startServer } from './network/servers.js';

/**
 * Tools that cut text they return (a search match at its shown length, a response body at its
 * byte limit, a header value) mask the run's secrets first, so no cut leaves half a secret.
 */
const secret = 'sk-live-0123456789abcdef';
const current = hostAndServerPerTest();

describe('secrets cut by a tool are masked before the cut', () => {
  it('a search match longer than the shown line', async () => {
    current.harness = await HostHarness.create({ allow: ['read'], masker: new SecretMasker([secret]) });
    const line = `${'x'.repeat(190)}${secret}${'y'.repeat(100)}`;
    await writeFile(path.join(current.harness!.root, 'config.txt'), `${line}\n`);
    const data = dataOf<{ matches: { text: string }[] }>(await current.harness!.invoke('search_files', { pattern: 'x{10}' }));
    expect(data.matches[0]!.text.startsWith(`${'x'.repeat(190)}***`)).toBe(true);
    expect(JSON.stringify(data)).not.toContain(secret.slice(0, 6));
  });

  it('a response body at its byte limit, and a header value', async () => {
    current.api = await startServer((_request, response) => {
      response.setHeader('x-echo', `${'h'.repeat(4090)}${secret}`);
      response.end(`${'b'.repeat(95)}${secret}`);
    });
    current.harness = await HostHarness.create({ allow: [`network(${current.api!.host})`], masker: new SecretMasker([secret]) });
    const data = dataOf<{ body: string; truncated: boolean; headers: Record<string, string> }>(
      await current.harness!.invoke('http_request', { url: `${current.api!.origin}/`, max_response_bytes: 100 }),
    );
    expect(data.body).toBe(`${'b'.repeat(95)}***`);
    expect(data.truncated).toBe(true);
    expect(data.headers['x-echo']).toBe(`${'h'.repeat(4090)}***`);
    expect(JSON.stringify(data)).not.toContain(secret.slice(0, 5));
  });
});
