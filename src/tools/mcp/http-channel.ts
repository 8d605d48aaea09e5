import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { Agent, Dispatcher } from 'undici';
import { resolveCheckedAddress, type AuthorizeNetwork } from '../network/checked-address.js';
import { pinnedLookup, type PinnedAddress } from '../network/pinned-address.js';
import { networkRequest, parseHttpTarget, sameOrigin, type HttpTarget } from '../network/url.js';
import { ToolError } from '../../host/errors.js';
import type { ServerChannel } from './server-connection.js';

/** Most bytes rho reads from one HTTP response of a server (a JSON answer or one event stream). */
export const maxResponseBytes = 64 * 1024 * 1024;
/** How long closing waits for the server to end the session (an HTTP DELETE) before letting go. */
const closeSessionMs = 500;

/**
 * fetch, with every response body cut off (as an error) past `maxResponseBytes`; through
 * `dispatcher` when one is given (a channel's, pinned to the address its server's name was
 * resolved to).
 */
export async function boundedFetch(input: string | URL, init?: RequestInit, dispatcher?: Dispatcher): Promise<Response> {
  const response = await fetch(input, dispatcher ? ({ ...init, dispatcher } as RequestInit) : init);
  if (!response.body) return response;
  let seen = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxResponseBytes) controller.error(new ToolError('execution_failed', `the server sent more than ${maxResponseBytes / 1024 / 1024} MiB in one response`));
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(limit), { status: response.status, statusText: response.statusText, headers: response.headers });
}

function checkedFetch(send: (input: string | URL, init?: RequestInit) => Promise<Response>, check: (response: Response) => void): typeof send {
  return async (input, init) => {
    const response = await send(input, init);
    check(response);
    return response;
  };
}

/** A failure in words; an authorization server's refusal says so, with its OAuth error code (`invalid_client`). */
function describeCause(cause: unknown): string {
  if (cause instanceof OAuthError) return `the authorization server refused: ${cause.errorCode}${cause.message ? ` (${cause.message.slice(0, 300)})` : ''}`;
  return cause instanceof Error ? cause.message : String(cause);
}

/** How a channel signs its requests in OAuth's way; see `auth/`. Made for the channel, with the channel's fetch (`ChannelAuthFor`). */
export interface ChannelAuth {
  provider: OAuthClientProvider;
  /** Whether the stored access token has expired, so that it is refreshed before the first request. */
  needsRefresh?(): Promise<boolean>;
  /** Sees each response of the server first, and throws for one the run cannot answer (a sign-in it would need). */
  checkResponse?(response: Response): void;
}

/** A channel's OAuth, made with the channel's fetch: any request it sends elsewhere (an identity provider) is a granted network request too. */
export type ChannelAuthFor = (send: (input: string | URL, init?: RequestInit) => Promise<Response>) => ChannelAuth | undefined;

/**
 * A Streamable HTTP channel (the SDK's client transport) to an authorized URL, every request to
 * the address its name was resolved to once, after the check. Redirects are refused: the policy
 * granted this host, not wherever the server points. `headers` may hold credentials; they are
 * sent to this origin only and never appear in a message. With `oauth`, the SDK answers the
 * server's 401 and 403 (`insufficient_scope`) through the provider `authFor` makes.
 */
export async function httpChannel(
  target: HttpTarget,
  headers: Readonly<Record<string, string>>,
  pinned: PinnedAddress,
  authorize: AuthorizeNetwork,
  authFor?: ChannelAuthFor,
): Promise<ServerChannel> {
  const { Agent } = await import('undici');
  const dispatchers = new OriginDispatchers(target, pinned, authorize, (address) => new Agent({ connect: { lookup: pinnedLookup(address) } }));
  const send = (input: string | URL, init?: RequestInit) => dispatchers.fetch(input, init);
  const oauth = authFor?.(send);
  const transport = new StreamableHTTPClientTransport(target.url, {
    requestInit: { headers: { ...headers }, redirect: 'error' },
    fetch: oauth?.checkResponse ? checkedFetch(send, oauth.checkResponse) : send,
    ...(oauth && { authProvider: oauth.provider }),
  });
  let closing: Promise<void> | undefined;
  const close = async () => {
    if (transport.sessionId !== undefined) {
      const ended = transport.terminateSession().catch(() => undefined);
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, closeSessionMs).unref())]);
    }
    await transport.close();
    await dispatchers.destroy();
  };
  return {
    transport,
    begin: async () => {
      if (oauth && (await oauth.needsRefresh?.())) await auth(oauth.provider, { serverUrl: target.url, fetchFn: send });
    },
    close: () => (closing ??= close()),
    describe: async (cause) => `${target.display}: ${describeCause(cause)}`,
  };
}

/**
 * Where a channel's requests go. The server's own origin (its MCP endpoint, its protected-resource
 * metadata) goes to the address checked when the server was granted. Any other origin — an
 * authorization server's metadata, token and registration endpoints, which OAuth discovery,
 * refresh and the client-credentials grant reach — is a `network(HOST)` request of the run like
 * any other, decided on the same authorization path each time, its name resolved and checked
 * once and then pinned: the server cannot send rho, or the run's credentials, to a host the
 * policy does not grant.
 */
class OriginDispatchers {
  private readonly byOrigin = new Map<string, Promise<Agent>>();
  private readonly own: Agent;

  constructor(
    private readonly server: HttpTarget,
    pinned: PinnedAddress,
    private readonly authorize: AuthorizeNetwork,
    private readonly agentFor: (address: PinnedAddress) => Agent,
  ) {
    this.own = agentFor(pinned);
  }

  async fetch(input: string | URL, init?: RequestInit): Promise<Response> {
    const target = parseHttpTarget(String(input));
    if (sameOrigin(target, this.server)) return boundedFetch(input, init, this.own);
    const request = networkRequest(init?.method ?? 'GET', target);
    await this.authorize(request);
    let agent = this.byOrigin.get(target.url.origin);
    if (!agent) {
      agent = resolveCheckedAddress(request, this.authorize).then((address) => this.agentFor(address));
      this.byOrigin.set(target.url.origin, agent);
      // A failed resolution is tried again by the next request rather than kept.
      agent.catch(() => this.byOrigin.delete(target.url.origin));
    }
    return boundedFetch(input, init, await agent);
  }

  async destroy(): Promise<void> {
    const agents = [this.own, ...(await Promise.allSettled(this.byOrigin.values())).flatMap((settled) => (settled.status === 'fulfilled' ? [settled.value] : []))];
    await Promise.all(agents.map((agent) => agent.destroy().catch(() => undefined)));
  }
}
