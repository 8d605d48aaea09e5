import { HostError } from './errors.js';
import { domainToASCII } from 'node:url';

const defaultPorts: Readonly<Record<string, string>> = { http: '80', https: '443' };

/**
 * Normalizes a host as rules and requests compare it: lower case, IDNA (punycode), default
 * port dropped. Accepts `host`, `host:port`, `[v6]:port`. Throws on anything else.
 */
export function normalizeHost(raw: string, scheme: 'http' | 'https' = 'https'): string {
  if (/[\s/?#@\\]/.test(raw) || raw.length === 0) throw new HostError('usage', `"${raw}" is not a host name`);
  let url: URL;
  try {
    url = new URL(`${scheme}://${raw}`);
  } catch {
    throw new HostError('usage', `"${raw}" is not a host name`);
  }
  const ascii = url.hostname.startsWith('[') ? url.hostname : domainToASCII(url.hostname);
  if (!ascii) throw new HostError('usage', `"${raw}" is not a valid international host name`);
  const port = url.port && url.port !== defaultPorts[scheme] ? `:${url.port}` : '';
  return `${ascii.toLowerCase()}${port}`;
}
