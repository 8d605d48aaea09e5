import { describe, expect, it } from 'vitest';
import { defaultTimeoutMs, parseRemoteCacheSettings } from '../../../src/workflow/up-to-date/remote/config.js';

const turbo = { TURBO_API: 'https://cache.example.com', TURBO_TOKEN: 'the-token' };

describe('parseRemoteCacheSettings', () => {
  it('has no cache without an address and a token, or when the file turns it off', () => {
    expect(parseRemoteCacheSettings(undefined, {})).toBeUndefined();
    expect(parseRemoteCacheSettings({ api: 'https://cache.example.com' }, {})).toBeUndefined();
    expect(parseRemoteCacheSettings(false, turbo)).toBeUndefined();
  });

  it("reads Turborepo's variables, over the file's values", () => {
    const settings = parseRemoteCacheSettings(
      { api: 'https://file.example.com', team: 'file-team', timeout: '5s' },
      { ...turbo, TURBO_TEAM: 'team_env', TURBO_REMOTE_CACHE_SIGNATURE_KEY: 'key', TURBO_REMOTE_CACHE_TIMEOUT: '2' },
    )!;
    expect(settings.target.display).toBe('https://cache.example.com/');
    expect(settings).toMatchObject({ token: 'the-token', team: 'team_env', signatureKey: 'key', timeoutMs: 2000, readOnly: false });
  });

  it("takes the file's values when no variable sets them", () => {
    const settings = parseRemoteCacheSettings({ api: 'http://127.0.0.1:3000/prefix', team: 'web', timeout: '5s' }, { TURBO_TOKEN: 't' })!;
    expect(settings).toMatchObject({ team: 'web', timeoutMs: 5000, signatureKey: undefined });
    expect(settings.target.url.pathname).toBe('/prefix');
    expect(parseRemoteCacheSettings({}, turbo)!.timeoutMs).toBe(defaultTimeoutMs);
  });

  it('is read-only when either the variable or the file says so', () => {
    expect(parseRemoteCacheSettings({}, { ...turbo, TURBO_REMOTE_CACHE_READ_ONLY: '1' })!.readOnly).toBe(true);
    expect(parseRemoteCacheSettings({ read_only: true }, { ...turbo, TURBO_REMOTE_CACHE_READ_ONLY: 'false' })!.readOnly).toBe(true);
    expect(parseRemoteCacheSettings({}, { ...turbo, TURBO_REMOTE_CACHE_READ_ONLY: 'false' })!.readOnly).toBe(false);
  });

  it('refuses malformed values before anything runs, never repeating the address', () => {
    expect(() => parseRemoteCacheSettings({}, { ...turbo, TURBO_REMOTE_CACHE_READ_ONLY: 'maybe' })).toThrow('TURBO_REMOTE_CACHE_READ_ONLY=maybe is not a boolean');
    expect(() => parseRemoteCacheSettings({}, { ...turbo, TURBO_REMOTE_CACHE_TIMEOUT: '-1' })).toThrow('TURBO_REMOTE_CACHE_TIMEOUT=-1');
    expect(() => parseRemoteCacheSettings({}, { ...turbo, TURBO_API: 'ftp://cache.example.com' })).toThrow('only http and https');
    expect(() => parseRemoteCacheSettings({}, { ...turbo, TURBO_API: 'https://user:pw@cache.example.com' })).toThrow(/user info/);
    expect(() => parseRemoteCacheSettings({}, { ...turbo, TURBO_API: 'https://cache.example.com/?token=x' })).toThrow('may not have a query string');
  });
});
