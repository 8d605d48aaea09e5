import { HostError } from './errors.js';
import { domainToASCII } from 'node:url';
import { addressBytes, inRange, unmappedIpv4, type AddressRange } from './ip-address.js';

const defaultPorts: Readonly<Record<string, string>> = { http: '80', https: '443' };

/** The port a scheme uses when a URL names none. */
export function defaultPort(scheme: 'http' | 'https'): number {
  return Number(defaultPorts[scheme]);
}

/**
 * Normalizes a host as rules and requests compare it (`canonicalHostname`), default port
 * dropped. Accepts `host`, `host:port`, `[v6]:port`. Throws on anything else.
 */
export function normalizeHost(raw: string, scheme: 'http' | 'https' = 'https'): string {
  const url = parseAuthority(raw, scheme);
  const port = url.port && url.port !== defaultPorts[scheme] ? `:${url.port}` : '';
  return `${canonicalHostname(url, raw)}${port}`;
}

/**
 * A host a `network(...)` rule names: `hostname` on any port, or one `port` of it. A rule may
 * name an address range instead (`network(10.0.0.0/8)`): `hostname` is then the range as
 * written canonically, and `range` what it covers. `localhost` covers the loopback addresses too.
 */
export interface HostPattern {
  hostname: string;
  port: number | undefined;
  range?: AddressRange;
}

/** The loopback addresses a rule naming `localhost` covers: the name always means this machine. */
const loopback: readonly AddressRange[] = [
  { address: '127.0.0.0', prefix: 8, family: 4 },
  { address: '::1', prefix: 128, family: 6 },
];

/**
 * Parses a rule's host: `example.org` (any port), `example.org:8080`, `[::1]:3000`, or a range
 * `10.0.0.0/8`, `[fc00::]/7:5432`. The port is read as written, so `example.org:443` means port
 * 443 whatever the scheme.
 */
export function parseHostPattern(raw: string): HostPattern {
  const { host, port } = splitPort(raw);
  const cidr = /^(.*)\/(\d{1,3})$/.exec(host);
  if (cidr) return { ...parseRange(cidr[1]!, Number(cidr[2]), raw), port };
  return { hostname: parseHostname(host, raw), port };
}

/** Parses `host`, `host:port` or `[v6]:port` (a CONNECT target, a rule's host) into its canonical hostname and its port, if written. */
export function parseHostPort(raw: string): { hostname: string; port: number | undefined } {
  const { host, port } = splitPort(raw);
  return { hostname: parseHostname(host, raw), port };
}

/** The canonical hostname of a host written without a port (`Example.ORG.`, `[::ffff:7f00:1]`). */
export function normalizeHostname(raw: string): string {
  return parseHostname(raw, raw);
}

function splitPort(raw: string): { host: string; port: number | undefined } {
  const written = /^(?:\[[^\]]*\]|[^:[\]]*)(?:\/\d{1,3})?:(\d{1,5})$/.exec(raw)?.[1];
  const port = written === undefined ? undefined : Number(written);
  if (port !== undefined && (port < 1 || port > 65_535)) throw new HostError('usage', `"${raw}": a port is 1 to 65535`);
  return { host: written === undefined ? raw : raw.slice(0, -(written.length + 1)), port };
}

function parseHostname(host: string, raw: string): string {
  const url = parseAuthority(host, 'http');
  if (url.port !== '') throw new HostError('usage', `"${raw}" is not a host name`);
  return canonicalHostname(url, raw);
}

function parseRange(rawAddress: string, prefix: number, raw: string): Omit<HostPattern, 'port'> {
  const hostname = parseHostname(rawAddress, raw);
  const address = hostname.replace(/^\[|\]$/g, '');
  const bytes = addressBytes(address);
  if (!bytes) throw new HostError('usage', `"${raw}": a range is an IP address and a prefix length (10.0.0.0/8, [fc00::]/7)`);
  const family = bytes.length === 4 ? 4 : 6;
  if (prefix > bytes.length * 8) throw new HostError('usage', `"${raw}": an IPv${family} prefix length is 0 to ${bytes.length * 8}`);
  return { hostname: `${hostname}/${prefix}`, range: { address, prefix, family } };
}

/** Whether a rule's host pattern covers a request's canonical hostname and port. */
export function hostPatternMatches(pattern: HostPattern, hostname: string, port: number): boolean {
  if (pattern.port !== undefined && pattern.port !== port) return false;
  if (pattern.hostname === hostname) return true;
  const address = hostname.replace(/^\[|\]$/g, '');
  if (pattern.range) return inRange(address, pattern.range);
  return pattern.hostname === 'localhost' && loopback.some((range) => inRange(address, range));
}

/** A hostname and port as a request shows it: `host`, `host:port`, `[v6]:port` (the port always written). */
export function hostWithPort(hostname: string, port: number): string {
  return `${hostname}:${port}`;
}

/**
 * The canonical form of an IP literal a resolver answered (`::ffff:7f00:1` → `127.0.0.1`), as a
 * request's hostname writes it: IPv6 in brackets.
 */
export function canonicalAddress(address: string): string {
  return canonicalHostname(parseAuthority(address.includes(':') ? `[${address}]` : address, 'http'), address);
}

function parseAuthority(raw: string, scheme: 'http' | 'https'): URL {
  if (/[\s/?#@\\%]/.test(raw) || raw.length === 0) throw new HostError('usage', `"${raw}" is not a host name`);
  try {
    return new URL(`${scheme}://${raw}`);
  } catch {
    throw new HostError('usage', `"${raw}" is not a host name`);
  }
}

/**
 * The one spelling rules, `http_request` and the proxy compare a host in. URL parsing already
 * writes IPv4 in dotted decimal (`2130706433`, `0x7f.1` and `127.1` are `127.0.0.1`) and IPv6
 * compressed in lower case; on top of that, an IPv4-mapped IPv6 address is its IPv4 address
 * (`[::ffff:127.0.0.1]` is `127.0.0.1`), names are lower case and IDNA (punycode), and a name's
 * trailing dot, which DNS ignores, is dropped (`example.org.` is `example.org`).
 */
function canonicalHostname(url: URL, raw: string): string {
  if (url.hostname.startsWith('[')) {
    const mapped = unmappedIpv4(url.hostname.slice(1, -1));
    return mapped ?? url.hostname;
  }
  const ascii = domainToASCII(url.hostname).toLowerCase();
  const name = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
  if (!name) throw new HostError('usage', `"${raw}" is not a valid international host name`);
  if (name.split('.').includes('')) throw new HostError('usage', `"${raw}" is not a host name (an empty label)`);
  return name;
}
