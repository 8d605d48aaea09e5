import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { NetworkRequest } from '../../../host/capability.js';
import { denialKinds, toToolError } from '../../../host/errors.js';
import { resolveCheckedAddress } from '../../network/checked-address.js';
import { pinnedLookup, type PinnedAddress } from '../../network/pinned-address.js';
import { newTokenPart, presentedToken, proxyChallenge } from './proxy-credentials.js';
import { parseForwardTarget, parseTunnelTarget, type TunnelTarget } from './proxy-targets.js';

/**
 * Decides one connection a confined process asks for: resolves when it is allowed, rejects with
 * the typed denial otherwise. It is the host's authorization path for the call whose process
 * asked (policy, gates, remembered, scripted, approver), so each host the proxy allows or
 * refuses is audited and shows in the events like any other request.
 */
type AuthorizeConnection = (request: NetworkRequest) => Promise<void>;

/** One process's admission to the proxy: the token its requests present, live until `close`. */
export interface ProxyAdmission {
  readonly token: string;
  /** Ends the token: a later request that presents it gets 407, and the connections that used it are closed. */
  close(): void;
}

/** What a live token stands for: how its process's requests are decided, and the connections that carried them. */
interface Admitted {
  authorize: AuthorizeConnection;
  connections: Set<Duplex>;
}

/** Headers that belong to one hop (RFC 9110 §7.6.1), and the proxy's own. */
const hopHeaders: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEndHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const listed = String(headers.connection ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || hopHeaders.has(name) || listed.includes(name)) continue;
    kept[name] = value;
  }
  return kept;
}

/** What a request without a live token is told: it is decided for no process. */
const unadmitted = 'the proxy serves only the processes rho started behind it, each with the credentials in its proxy variables';

function messageOf(error: unknown): string {
  return toToolError(error).message;
}

/** Whether the authorization path refused (rather than the name failing to resolve). */
function isDenial(error: unknown): boolean {
  return denialKinds.has(toToolError(error).kind);
}

/**
 * The run's filtering HTTP/HTTPS proxy: plain `http://` requests in absolute form and CONNECT
 * tunnels, each target authorized before anything is sent, then connected to the address its
 * name resolved to right after the check (never resolved again: DNS rebinding cannot redirect
 * an allowed name), an address that is itself checked (`resolveCheckedAddress`). It never
 * listens anywhere: the connections a sandbox's forwarder accepted are handed to it (`accept`),
 * and every request in them is decided for the process whose token it presents
 * (`proxy-credentials.ts`; `admit` gives a process its token). A request without a live token
 * gets 407 and is decided for no one.
 *
 * Built on node:http's CONNECT handling rather than a proxy package: the well-kept ones
 * (`proxy`, `proxy-chain`) connect to targets by name, so they resolve again after any check
 * a hook could make, listen on TCP only, and bring upstream chaining, SOCKS and MITM support a
 * policy proxy must not have; what is left to write is the decision and the pinned connect.
 */
export class FilteringProxy {
  private readonly server: Server;
  private readonly admitted = new Map<string, Admitted>();
  private readonly connections = new Set<Duplex>();
  private closed = false;
  /** @param key the first half of every token this proxy gives: a secret of the run, to be masked in its output. */
  constructor(readonly key: string = newTokenPart()) {
    this.server = createServer((request, response) => void this.forward(request, response));
    this.server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(request, socket, head));
    this.server.on('clientError', (_error, socket) => socket.destroy());
  }

  /** Serves one connection a forwarder accepted; once the proxy is closed, one is closed as it arrives. */
  accept(socket: Socket): void {
    if (this.closed) return void socket.destroy();
    this.connections.add(socket);
    socket.once('close', () => this.connections.delete(socket));
    this.server.emit('connection', socket);
  }

  /** A fresh token (`key` and a part of its own) whose requests are decided by `authorize`. */
  admit(authorize: AuthorizeConnection): ProxyAdmission {
    const token = this.key + newTokenPart();
    const admitted: Admitted = { authorize, connections: new Set() };
    this.admitted.set(token, admitted);
    return {
      token,
      close: () => {
        if (this.admitted.get(token) !== admitted) return;
        this.admitted.delete(token);
        for (const connection of admitted.connections) connection.destroy();
      },
    };
  }

  /** Ends every token and connection (the run is over). */
  close(): void {
    this.closed = true;
    this.admitted.clear();
    for (const connection of this.connections) connection.destroy();
  }

  /** How the request's token says it is decided, tying its connection to that token; undefined without a live one. */
  private authorizerOf(incoming: IncomingMessage, connection: Duplex): AuthorizeConnection | undefined {
    const token = presentedToken(incoming.headers);
    const admitted = token === undefined ? undefined : this.admitted.get(token);
    if (!admitted) return undefined;
    if (!admitted.connections.has(connection)) {
      admitted.connections.add(connection);
      connection.once('close', () => admitted.connections.delete(connection));
    }
    return admitted.authorize;
  }

  private async forward(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const refuse = (status: number, message: string) => {
      if (response.headersSent) return void response.destroy();
      response
        .writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close', ...(status === 407 && { 'proxy-authenticate': proxyChallenge }) })
        .end(`rho: ${message}\n`);
    };
    const authorize = this.authorizerOf(incoming, incoming.socket);
    if (!authorize) return refuse(407, unadmitted);
    let parsed: ReturnType<typeof parseForwardTarget>;
    try {
      parsed = parseForwardTarget(incoming.method ?? 'GET', incoming.url ?? '');
    } catch (error) {
      return refuse(400, messageOf(error));
    }
    const { target } = parsed;
    try {
      await authorize(parsed.request);
    } catch (error) {
      return refuse(403, messageOf(error));
    }
    let pinned: PinnedAddress;
    try {
      pinned = await resolveCheckedAddress(parsed.request, authorize);
    } catch (error) {
      return refuse(isDenial(error) ? 403 : 502, messageOf(error));
    }
    const headers = { ...endToEndHeaders(incoming.headers), host: target.url.host };
    const upstream = httpRequest({
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: target.port,
      method: incoming.method,
      path: `${target.url.pathname}${target.url.search}`,
      headers,
      lookup: pinnedLookup(pinned),
      agent: false,
    });
    upstream.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEndHeaders(answer.headers));
      answer.pipe(response);
    });
    upstream.on('error', (error) => refuse(502, `${target.host}: ${(error as NodeJS.ErrnoException).code ?? 'the connection failed'}`));
    response.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  }

  private async tunnel(incoming: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const refuse = (status: string, message: string, extra = '') => {
      socket.end(`HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n${extra}\r\nrho: ${message}\n`);
    };
    const authorize = this.authorizerOf(incoming, socket);
    if (!authorize) return refuse('407 Proxy Authentication Required', unadmitted, `proxy-authenticate: ${proxyChallenge}\r\n`);
    let target: TunnelTarget;
    try {
      target = parseTunnelTarget(incoming.url ?? '');
    } catch (error) {
      return refuse('400 Bad Request', messageOf(error));
    }
    try {
      await authorize(target.request);
    } catch (error) {
      return refuse('403 Forbidden', messageOf(error));
    }
    let pinned: PinnedAddress;
    try {
      pinned = await resolveCheckedAddress(target.request, authorize);
    } catch (error) {
      return refuse(isDenial(error) ? '403 Forbidden' : '502 Bad Gateway', messageOf(error));
    }
    const upstream = connect({ host: pinned.address, port: target.port, family: pinned.family });
    upstream.once('connect', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', (error) => {
      if (upstream.readyState === 'opening') refuse('502 Bad Gateway', `${target.request.host}: ${(error as NodeJS.ErrnoException).code ?? 'the connection failed'}`);
      else socket.destroy();
    });
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
  }
}
