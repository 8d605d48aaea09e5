/**
 * Header names that carry credentials, by the words APIs use for them (`Authorization`,
 * `X-Api-Key`, `Private-Token`, `X-Amz-Security-Token`, `Ocp-Apim-Subscription-Key`, cookies,
 * sessions, signatures): never sent to another origin after a redirect. Wider than any list of
 * known names, on purpose: a header dropped needlessly costs a retry, one leaked costs a key.
 */
const credentialHeaderPattern = /auth|token|secret|passw|api-?key|cookie|session|signature|credential|csrf|xsrf|jwt|(^|-)key(-|$)/;

export function isCredentialHeader(name: string): boolean {
  return credentialHeaderPattern.test(name.toLowerCase());
}

/** Headers fetch manages itself; setting them by hand would let a call smuggle a different request. */
export const managedHeaders: ReadonlySet<string> = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);

export const headerNamePattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
export const headerValuePattern = /^[^\r\n\0]*$/;

export const responseHeaderLimits = { count: 100, valueLength: 4096, totalLength: 32 * 1024 } as const;

/** Response headers that carry credentials; their values are replaced before anything is returned. */
const credentialResponseHeaders: ReadonlySet<string> = new Set(['set-cookie']);

export const redactedValue = '[redacted]';

/** Headers for the next hop of a redirect: credentials dropped when the origin changes. */
export function headersForHop(headers: Headers, crossOrigin: boolean, dropBody: boolean): Headers {
  const next = new Headers(headers);
  if (crossOrigin) for (const [name] of headers) if (isCredentialHeader(name)) next.delete(name);
  if (dropBody) next.delete('content-type');
  return next;
}

/** Response headers as a bounded plain object: lower-case names, credentials redacted, secrets masked, sizes capped. */
export function boundedResponseHeaders(headers: Headers, mask: (text: string) => string = (text) => text): { headers: Record<string, string>; truncated: boolean } {
  const bounded: Record<string, string> = {};
  let truncated = false;
  let total = 0;
  let count = 0;
  for (const [name, rawValue] of headers) {
    // Masked before the cut below, so a cut never leaves half a secret.
    let value = credentialResponseHeaders.has(name) ? redactedValue : mask(rawValue);
    if (value.length > responseHeaderLimits.valueLength) {
      value = value.slice(0, responseHeaderLimits.valueLength);
      truncated = true;
    }
    if (count >= responseHeaderLimits.count || total + name.length + value.length > responseHeaderLimits.totalLength) {
      truncated = true;
      break;
    }
    bounded[name] = value;
    total += name.length + value.length;
    count += 1;
  }
  return { headers: bounded, truncated };
}
