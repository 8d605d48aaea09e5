import type { NetworkRequest } from '../../host/capability.js';
import { ToolError } from '../../host/errors.js';
import { contentDigest } from '../../host/fingerprint.js';
import { defaultPort, normalizeHost, normalizeHostname } from '../../host/network-host.js';
import { isCredentialHeader } from './headers.js';

export const maxUrlLength = 8192;

/** A URL rho may call: http or https, no user info, its host normalized as policy rules compare it. */
export interface HttpTarget {
  /** The URL fetched (fragment removed). Its query string is never shown or logged. */
  readonly url: URL;
  readonly scheme: 'http' | 'https';
  readonly host: string;
  /** Normalized host name without the port (what rules compare). */
  readonly hostname: string;
  /** The port connected to: the URL's, else the scheme's default. */
  readonly port: number;
  /** scheme://host/path: what messages, metadata and policy requests show. */
  readonly display: string;
}

/** User info hides in the authority: `http://user:pw@host`, `//user@host` (a relative redirect). */
const authorityPattern = /^(?:[a-z][a-z0-9+.-]*:)?[\\/]{2}([^\\/?#]*)/i;

/**
 * Parses a URL from a call's arguments or a redirect's Location (relative to `base`). Throws
 * a ToolError whose message never repeats the URL: it may carry credentials or a query string.
 */
export function parseHttpTarget(raw: string, base?: URL): HttpTarget {
  const refuse = (reason: string) => new ToolError('invalid_arguments', `URL refused: ${reason}`);
  if (raw.length > maxUrlLength) throw refuse(`longer than ${maxUrlLength} characters`);
  if (authorityPattern.exec(raw.trim())?.[1]?.includes('@')) {
    throw refuse('it carries user info (user@host); pass credentials in a header instead');
  }
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw refuse('not a valid absolute URL');
  }
  if (url.username !== '' || url.password !== '') throw refuse('it carries user info (user@host); pass credentials in a header instead');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse(`only http and https are allowed, not ${url.protocol.replace(/:$/, '')}`);
  const scheme = url.protocol === 'http:' ? 'http' : 'https';
  let host: string;
  let hostname: string;
  try {
    host = normalizeHost(url.host, scheme);
    hostname = normalizeHostname(url.hostname);
  } catch (cause) {
    throw new ToolError('invalid_arguments', `URL refused: ${(cause as Error).message}`, { cause });
  }
  const port = url.port === '' ? defaultPort(scheme) : Number(url.port);
  url.hash = '';
  return Object.freeze({ url, scheme, host, hostname, port, display: `${scheme}://${host}${url.pathname}` });
}

/** What is sent besides the URL's path, for the preview of a request: names and sizes only. */
export interface SentParts {
  headers: Headers;
  body: string | undefined;
}

/**
 * The capability request for calling a target: the facts policy decides on (no query, no user
 * info); digests of what the call sends (query, headers, body), which only the exact-match
 * identity of a remembered approval reads; and a preview for a person (names and sizes only).
 */
export function networkRequest(method: string, target: HttpTarget, sent?: SentParts): NetworkRequest {
  const request: NetworkRequest = {
    class: 'network',
    method,
    scheme: target.scheme,
    host: target.host,
    hostname: target.hostname,
    port: target.port,
    url: target.display,
  };
  if (!sent) return request;
  const names = [...sent.headers.keys()];
  return {
    ...request,
    ...(target.url.search !== '' && { queryDigest: contentDigest(target.url.search) }),
    // Headers iterate sorted by lower-case name.
    headers: [...sent.headers].map(([name, value]) => ({ name, valueDigest: contentDigest(value) })),
    ...(sent.body !== undefined && { bodyDigest: contentDigest(sent.body) }),
    preview: {
      queryNames: [...new Set(target.url.searchParams.keys())],
      bodyBytes: sent.body === undefined ? undefined : Buffer.byteLength(sent.body, 'utf8'),
      credentialHeaders: names.filter((name) => isCredentialHeader(name)),
      headerNames: names.filter((name) => !isCredentialHeader(name)),
    },
  };
}

/** Whether two targets share an origin (scheme, host and port); credentials never cross origins. */
export function sameOrigin(a: HttpTarget, b: HttpTarget): boolean {
  return a.scheme === b.scheme && a.host === b.host;
}
