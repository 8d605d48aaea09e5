import { HostError } from './errors.js';
import { domainToASCII } from 'node:url';

const defaultPorts: Readonly<Record<string, string>> = { http: '80', https: '443' };

/** The port a scheme uses when a URL names none. */
export function defaultPort(scheme: 'http' | 'https'): number {
  return Number(defaultPorts[scheme]);
}

/**
 * Normalizes a host as rules and requests compare it: lower case, IDNA (punycode), default
 * port dropped. Accepts `host`, `host:port`, `[v6]:port`. Throws on anything else.
 */
export function normalizeHost(raw: string, scheme: 'http' | 'https' = 'https'): string {
  const url = parseAuthority(raw, scheme);
  const port = url.port && url.port !== defaultPorts[scheme] ? `:${url.port}` : '';
  return `${asciiHostname(url, raw)}${port}`;
}

/** A host a `network(...)` rule names: `hostname` on any port, or one `port` of it. */
export interface HostPattern {
  hostname: string;
  port: number | undefined;
}

/**
 * Parses a rule's host: `example.org` (any port), `example.org:8080`, `[::1]:3000`. The port is
 * read as written, so `example.org:443` means port 443 whatever the scheme.
 */
export function parseHostPattern(raw: string): HostPattern {
  const port = /^(?:\[[^\]]*\]|[^:[\]]*):(\d{1,5})$/.exec(raw)?.[1];
  const url = parseAuthority(port === undefined ? raw : raw.slice(0, -(port.length + 1)), 'http');
  if (url.port !== '') throw new HostError('usage', `"${raw}" is not a host name`);
  const number = port === undefined ? undefined : Number(port);
  if (number !== undefined && (number < 1 || number > 65_535)) throw new HostError('usage', `"${raw}": a port is 1 to 65535`);
  return { hostname: asciiHostname(url, raw), port: number };
}

/** A hostname and port as a request shows it: `host`, `host:port`, `[v6]:port` (the port always written). */
export function hostWithPort(hostname: string, port: number): string {
  return `${hostname}:${port}`;
}

function parseAuthority(raw: string, scheme: 'http' | 'https'): URL {
  if (/[\s/?#@\\]/.test(raw) || raw.length === 0) throw new HostError('usage', `"${raw}" is not a host name`);
  try {
    return new URL(`${scheme}://${raw}`);
  } catch {
    throw new HostError('usage', `"${raw}" is not a host name`);
  }
}

function asciiHostname(url: URL, raw: string): string {
  const ascii = url.hostname.startsWith('[') ? url.hostname : domainToASCII(url.hostname);
  if (!ascii) throw new HostError('usage', `"${raw}" is not a valid international host name`);
  return ascii.toLowerCase();
}
