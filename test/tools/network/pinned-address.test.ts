import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pinnedLookup, resolvePinned } from '../../../src/tools/network/pinned-address.js';
import { startServer, type TestServer } from './servers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('pinned addresses', () => {
  it('take IP literals as they are, and resolve names once', async () => {
    expect(await resolvePinned('127.0.0.1')).toEqual({ address: '127.0.0.1', family: 4 });
    expect(await resolvePinned('[::1]')).toEqual({ address: '::1', family: 6 });
    expect(['127.0.0.1', '::1']).toContain((await resolvePinned('localhost')).address);
    await expect(resolvePinned('no-such-host.invalid')).rejects.toThrow(/could not resolve no-such-host\.invalid: ENOTFOUND/);
  });

  it('connect to the pinned address whatever the name says, for single and all-address lookups', async () => {
    server = await startServer((_request, response) => response.end('pinned'));
    const lookup = pinnedLookup({ address: '127.0.0.1', family: 4 });
    for (const autoSelectFamily of [false, true]) {
      const remote = await new Promise<string | undefined>((resolve, reject) => {
        const socket = connect({ host: 'rebound.invalid', port: Number(new URL(server!.origin).port), lookup, autoSelectFamily });
        socket.on('connect', () => {
          resolve(socket.remoteAddress);
          socket.destroy();
        });
        socket.on('error', reject);
      });
      expect(remote).toBe('127.0.0.1');
    }
  });
});
