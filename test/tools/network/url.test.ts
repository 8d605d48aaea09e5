import { createHash } from 'node:crypto';
import { contentDigest } from '../../../src/host/fingerprint.js';
import { describe, expect, it } from 'vitest';
import { Policy } from '../../../src/host/policy.js';
import { networkRequest, parseHttpTarget, sameOrigin } from '../../../src/tools/network/url.js';

describe('parseHttpTarget', () => {
  it.each([
    'http://user@example.org/',
    'http://user:pw@example.org/',
    'http://:pw@example.org/',
    'http://@example.org/',
    'https://user%40x:pw@example.org/',
    'HTTP://User@Example.org',
    'http:\\\\user@example.org/',
  ])('refuses user info in %s without repeating the URL', (raw) => {
    expect(() => parseHttpTarget(raw)).toThrow(/user info/);
    try {
      parseHttpTarget(raw);
    } catch (error) {
      expect((error as Error).message).not.toContain('pw');
      expect((error as Error).message).not.toContain('example.org');
    }
  });

  it('refuses user info in a protocol-relative redirect location', () => {
    expect(() => parseHttpTarget('//user:pw@evil.example/', new URL('https://example.org/a'))).toThrow(/user info/);
  });

  it.each(['ftp://example.org/', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/plain,hi', 'ws://example.org/'])('refuses the scheme of %s', (raw) => {
    expect(() => parseHttpTarget(raw)).toThrow(/only http and https/);
  });

  it('refuses text that is not an absolute URL', () => {
    expect(() => parseHttpTarget('/relative/path')).toThrow(/not a valid absolute URL/);
    expect(() => parseHttpTarget('http://exa mple.org/')).toThrow(/URL refused/);
  });

  it.each([
    ['HTTPS://ExAmple.ORG:443/a/b?token=s3cret#frag', 'example.org', 'https://example.org/a/b'],
    ['http://example.org:80/', 'example.org', 'http://example.org/'],
    ['http://example.org:8080/x', 'example.org:8080', 'http://example.org:8080/x'],
    ['https://example.org:80/', 'example.org:80', 'https://example.org:80/'],
    ['https://bücher.example/', 'xn--bcher-kva.example', 'https://xn--bcher-kva.example/'],
    ['http://[::1]:8080/', '[::1]:8080', 'http://[::1]:8080/'],
  ])('normalizes %s to host %s and shows %s (no query, no fragment)', (raw, host, display) => {
    const target = parseHttpTarget(raw);
    expect(target.host).toBe(host);
    expect(target.display).toBe(display);
    expect(target.url.hash).toBe('');
  });

  it('resolves a relative redirect against the current URL and keeps the query only in the URL it fetches', () => {
    const target = parseHttpTarget('../next?page=2', new URL('http://127.0.0.1:9/a/b/c'));
    expect(target.display).toBe('http://127.0.0.1:9/a/next');
    expect(target.url.search).toBe('?page=2');
  });

  it('builds network requests with method, scheme, host and a URL without query; what is sent only as digests', () => {
    const digest = contentDigest;
    const request = networkRequest('POST', parseHttpTarget('https://Example.org/api?key=1'), {
      headers: new Headers({ 'X-Api-Key': 'k-123456', accept: 'text/plain' }),
      body: 'payload',
    });
    expect(request).toEqual({
      class: 'network',
      method: 'POST',
      scheme: 'https',
      host: 'example.org',
      hostname: 'example.org',
      port: 443,
      url: 'https://example.org/api',
      queryDigest: digest('?key=1'),
      headers: [
        { name: 'accept', valueDigest: digest('text/plain') },
        { name: 'x-api-key', valueDigest: digest('k-123456') },
      ],
      bodyDigest: digest('payload'),
      preview: { queryNames: ['key'], bodyBytes: 7, credentialHeaders: ['x-api-key'], headerNames: ['accept'] },
    });
    expect(JSON.stringify(request)).not.toMatch(/key=1|k-123456|payload/);
    // Keyed: a digest of a guess does not match.
    expect(request.bodyDigest).not.toBe(createHash('sha256').update('payload').digest('hex'));
  });

  it('compares origins by scheme, host and port', () => {
    expect(sameOrigin(parseHttpTarget('http://a.example/x'), parseHttpTarget('http://A.example:80/y'))).toBe(true);
    expect(sameOrigin(parseHttpTarget('http://a.example/'), parseHttpTarget('https://a.example/'))).toBe(false);
    expect(sameOrigin(parseHttpTarget('http://a.example/'), parseHttpTarget('http://a.example:81/'))).toBe(false);
  });
});

describe('network rules against parsed targets', () => {
  const decide = (rule: string, raw: string) => Policy.fromText({ allow: [rule] }).evaluate(networkRequest('GET', parseHttpTarget(raw)), '/').decision;

  it('matches hosts exactly after normalization (case, IDNA, default port)', () => {
    expect(decide('network(EXAMPLE.org)', 'https://example.ORG/')).toBe('allow');
    expect(decide('network(example.org:443)', 'https://example.org/')).toBe('allow');
    expect(decide('network(bücher.example)', 'https://xn--bcher-kva.example/')).toBe('allow');
  });

  it('matches a bare host on any port', () => {
    expect(decide('network(example.org)', 'https://example.org:8443/')).toBe('allow');
    expect(decide('network(127.0.0.1)', 'http://127.0.0.1:8081/')).toBe('allow');
  });

  it('never matches by suffix, prefix or another port than the one named', () => {
    expect(decide('network(example.org)', 'https://api.example.org/')).toBe('deny');
    expect(decide('network(example.org)', 'https://example.org.evil.test/')).toBe('deny');
    expect(decide('network(example.org:443)', 'https://example.org:8443/')).toBe('deny');
    expect(decide('network(127.0.0.1:8080)', 'http://127.0.0.1:8081/')).toBe('deny');
  });
});
