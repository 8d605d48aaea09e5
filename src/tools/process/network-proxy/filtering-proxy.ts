import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { NetworkRequest } from '../../../host/capability.js';
import { denialKinds, ToolError, toToolError } from '../../../host/errors.js';
import { resolveCheckedAddress } from '../../network/checked-address.js';
import { pinnedLookup, type PinnedAddress } from '../../network/pinned-address.js';
import { parseForwardTarget, parseTunnelTarget, type TunnelTarget } from './proxy-targets.js';

/**
 * Decides one connection a confined process asks for: resolves when it is allowed, rejects with
 * the typed denial otherwise. It is the host's authorization path for the call whose process
 * asked (policy, gates, remembered, scripted, approver), so each host the proxy allows or
 * refuses is audited and shows in the events like any other request.
 */
type AuthorizeConnection = (request: NetworkRequest) => Promise<void>;

/** One process's way into the proxy: the connections its forwarder hands over, each decided for that process. */
export interface ProxyChannel {
  /** Serves one connection the process opened. */
  accept(socket: Socket): void;
  /** Ends the connections still open; later ones are closed as they arrive. */
  close(): void;
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
 * listens anywhere: each confined process gets a channel of its own (`channel`), and the
 * connections its sandbox hands over through it are served here, so every connection is
 * decided for the process that made it.
 *
 * Built on node:http's CONNECT handling rather than a proxy package: the well-kept ones
 * (`proxy`, `proxy-chain`) connect to targets by name, so they resolve again after any check
 * a hook could make, listen on TCP only, and bring upstream chaining, SOCKS and MITM support a
 * policy proxy must not have; what is left to write is the decision and the pinned connect.
 */
export class FilteringProxy {
  private readonly server: Server;
  private readonly callers = new WeakMap<Duplex, AuthorizeConnection>();
  private readonly channels = new Set<ProxyChannel>();

  constructor() {
    this.server = createServer((request, response) => void this.forward(request, response));
    this.server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(request, socket, head));
    this.server.on('clientError', (_error, socket) => socket.destroy());
  }

  /** A channel whose connections are decided by `authorize`. */
  channel(authorize: AuthorizeConnection): ProxyChannel {
    const open = new Set<Socket>();
    let closed = false;
    const channel: ProxyChannel = {
      accept: (socket) => {
        if (closed) return void socket.destroy();
        open.add(socket);
        socket.once('close', () => open.delete(socket));
        this.callers.set(socket, authorize);
        this.server.emit('connection', socket);
      },
      close: () => {
        if (closed) return;
        closed = true;
        this.channels.delete(channel);
        for (const socket of open) socket.destroy();
      },
    };
    this.channels.add(channel);
    return channel;
  }

  /** Closes every channel (the run is over). */
  close(): void {
    for (const channel of [...this.channels]) channel.close();
  }

  private authorizeFor(socket: Duplex): AuthorizeConnection {
    return this.callers.get(socket) ?? (() => Promise.reject(new ToolError('internal', 'connection from an unknown listener')));
  }

  private async forward(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const refuse = (status: number, message: string) => {
      if (response.headersSent) return void response.destroy();
      response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(`rho: ${message}\n`);
    };
    let parsed: ReturnType<typeof parseForwardTarget>;
    try {
      parsed = parseForwardTarget(incoming.method ?? 'GET', incoming.url ?? '');
    } catch (error) {
      return refuse(400, messageOf(error));
    }
    const { target } = parsed;
    const authorize = this.authorizeFor(incoming.socket);
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
    const refuse = (status: string, message: string) => {
      socket.end(`HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n\r\nrho: ${message}\n`);
    };
    let target: TunnelTarget;
    try {
      target = parseTunnelTarget(incoming.url ?? '');
    } catch (error) {
      return refuse('400 Bad Request', messageOf(error));
    }
    const authorize = this.authorizeFor(socket);
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
