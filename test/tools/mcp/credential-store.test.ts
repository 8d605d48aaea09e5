import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CredentialStore, resolveCredentialsFile, serverKey } from '../../../src/tools/mcp/auth/credential-store.js';

let dir: string;
beforeEach(async () => (dir = await mkdtemp(path.join(os.tmpdir(), 'rho-credentials-'))));
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('the MCP credentials file', () => {
  it('lives under XDG_CONFIG_HOME, else ~/.config, and keys a server by its URL without query', () => {
    expect(resolveCredentialsFile({ XDG_CONFIG_HOME: '/x/config', HOME: '/home/ada' })).toBe('/x/config/rho/mcp-credentials.json');
    expect(resolveCredentialsFile({ XDG_CONFIG_HOME: 'relative', HOME: '/home/ada' })).toBe('/home/ada/.config/rho/mcp-credentials.json');
    expect(() => resolveCredentialsFile({})).toThrow(/set HOME or XDG_CONFIG_HOME/);
    expect(serverKey(new URL('https://mcp.example.com/mcp?x=1#y'))).toBe('https://mcp.example.com/mcp');
  });

  it('is written readable by the user alone, in a directory only the user can enter', async () => {
    const file = path.join(dir, 'rho', 'mcp-credentials.json');
    const store = new CredentialStore(file);
    await store.update('https://a.example/mcp', () => ({ tokens: { access_token: 'token-one', token_type: 'Bearer' } }));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    expect(await store.get('https://a.example/mcp')).toEqual({ tokens: { access_token: 'token-one', token_type: 'Bearer' } });
    await store.update('https://a.example/mcp', () => undefined);
    expect(await store.get('https://a.example/mcp')).toBeUndefined();
  });

  it('refuses a file other users can read, or one that is not rho’s, saying how to fix it', async () => {
    const file = path.join(dir, 'mcp-credentials.json');
    await writeFile(file, JSON.stringify({ version: 1, servers: {} }), { mode: 0o644 });
    await chmod(file, 0o644);
    await expect(new CredentialStore(file).get('k')).rejects.toThrow(`can be read by other users; rho refuses to use it: run chmod 600 ${file}`);
    await writeFile(file, JSON.stringify({ servers: 3 }));
    await chmod(file, 0o600);
    await expect(new CredentialStore(file).get('k')).rejects.toThrow(/is not a credentials file of rho's/);
  });
});
