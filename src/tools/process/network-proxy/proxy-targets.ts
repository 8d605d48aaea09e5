import type { NetworkRequest } from '../../../host/capability.js';
import { ToolError } from '../../../host/errors.js';
import { parseHostPort } from '../../../host/network-host.js';
import { networkRequest, parseHttpTarget, type HttpTarget } from '../../network/url.js';

/** Where a CONNECT tunnel goes, as its request names it. */
export interface TunnelTarget {
  hostname: string;
  port: number;
  request: NetworkRequest;
}

/**
 * Parses a CONNECT request's target, `host:port` or `[v6]:port` (RFC 9110: the port is
 * required). The request a policy decides on names the host and port, nothing else.
 */
export function parseTunnelTarget(authority: string): TunnelTarget {
  const refuse = () => new ToolError('invalid_arguments', 'CONNECT needs a target of the form host:port');
  let pattern: ReturnType<typeof parseHostPort>;
  try {
    pattern = parseHostPort(authority);
  } catch {
    throw refuse();
  }
  if (pattern.port === undefined) throw refuse();
  const { hostname, port } = pattern;
  const host = `${hostname}:${port}`;
  return { hostname, port, request: { class: 'network', method: 'CONNECT', scheme: 'tunnel', host, hostname, port, url: `tunnel://${host}` } };
}

/**
 * Parses the absolute-form target of a plain HTTP request sent to the proxy
 * (`GET http://host/path`). Only `http:` travels this way; HTTPS goes through CONNECT.
 */
export function parseForwardTarget(method: string, rawUrl: string): { target: HttpTarget; request: NetworkRequest } {
  if (!/^http:\/\//i.test(rawUrl)) throw new ToolError('invalid_arguments', 'a proxy request names an absolute http:// URL (HTTPS goes through CONNECT)');
  const target = parseHttpTarget(rawUrl);
  return { target, request: networkRequest(method, target) };
}
