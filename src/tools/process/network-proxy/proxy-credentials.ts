import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/*
 * How a request names the process that sent it. Every confined process behind the proxy gets a
 * token of its own in its proxy variables (`http://rho:TOKEN@127.0.0.1:PORT`), which proxy-aware
 * programs send as `Proxy-Authorization: Basic` on every request and CONNECT; the proxy decides
 * each request for the process its token names, and answers 407 to one without a live token.
 * A token is the run's key followed by a part of the process's own, both random: the run's
 * masker knows the key, once (one secret per process would make masking every output of a long
 * run slower with each step), so no output shows a whole token.
 */

/** The user name of the proxy's credentials: only the password (the token) names a process. */
const proxyUser = 'rho';

/** 128 random bits, as hex: no form of it needs escaping in a URL or a header. */
const partBytes = 16;

/** What a 407 answer asks for. */
export const proxyChallenge = 'Basic realm="rho"';

/** A fresh random part of a token: the run's key, or a process's own part. */
export function newTokenPart(): string {
  return randomBytes(partBytes).toString('hex');
}

/** The variables that point a process at the proxy listening on 127.0.0.1:`port`, with its token; nothing bypasses it. */
export function proxyVariables(port: number, token: string): Record<string, string> {
  const proxy = `http://${proxyUser}:${token}@127.0.0.1:${port}`;
  return { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy, NO_PROXY: '', no_proxy: '' };
}

const basicCredentials = /^basic\s+([A-Za-z0-9+/]+={0,2})$/i;
const tokenShape = new RegExp(`^[0-9a-f]{${partBytes * 4}}$`);

/** The token a request presents (`Proxy-Authorization: Basic` of `rho:TOKEN`), or undefined when it presents none of that shape. */
export function presentedToken(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['proxy-authorization'];
  const encoded = typeof value === 'string' ? basicCredentials.exec(value.trim())?.[1] : undefined;
  if (encoded === undefined) return undefined;
  const [user, token, ...rest] = Buffer.from(encoded, 'base64').toString('latin1').split(':');
  return user === proxyUser && rest.length === 0 && token !== undefined && tokenShape.test(token) ? token : undefined;
}
