import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Dispatcher } from 'undici';
import { pinnedLookup, type PinnedAddress } from '../network/pinned-address.js';
import type { HttpTarget } from '../network/url.js';
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
      if (seen > maxResponseBytes) controller.error(new Error(`the server sent more than ${maxResponseBytes / 1024 / 1024} MiB in one response`));
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

/** How a channel signs its requests in OAuth's way; see `auth/`. */
export interface ChannelAuth {
  provider: OAuthClientProvider;
  /** Whether the stored access token has expired, so that it is refreshed before the first request. */
  needsRefresh?(): Promise<boolean>;
  /** Sees each response of the server first, and throws for one the run cannot answer (a sign-in it would need). */
  checkResponse?(response: Response): void;
}

/**
/**
 * A Streamable HTTP channel (the SDK's client transport) to an authorized URL, every request to
 * the address its name was resolved to once, after the check. Redirects are refused: the policy
 * granted this host, not wherever the server points. `headers` may hold credentials; they are
 * sent to this origin only and never appear in a message. With `oauth`, the SDK answers the
 * server's 401 and 403 (`insufficient_scope`) through the provider.
 */
export async function httpChannel(target: HttpTarget, headers: Readonly<Record<string, string>>, pinned: PinnedAddress, oauth?: ChannelAuth): Promise<ServerChannel> {
  const { Agent } = await import('undici');
  const dispatcher = new Agent({ connect: { lookup: pinnedLookup(pinned) } });
  const pinnedFetch = (input: string | URL, init?: RequestInit) => boundedFetch(input, init, dispatcher);
  const transport = new StreamableHTTPClientTransport(target.url, {
    requestInit: { headers: { ...headers }, redirect: 'error' },
    fetch: oauth?.checkResponse ? checkedFetch(pinnedFetch, oauth.checkResponse) : pinnedFetch,
    ...(oauth && { authProvider: oauth.provider }),
  });
  let closing: Promise<void> | undefined;
  const close = async () => {
    if (transport.sessionId !== undefined) {
      const ended = transport.terminateSession().catch(() => undefined);
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, closeSessionMs).unref())]);
    }
    await transport.close();
    await dispatcher.destroy().catch(() => undefined);
  };
  return {
    transport,
    begin: async () => {
      if (oauth && (await oauth.needsRefresh?.())) await auth(oauth.provider, { serverUrl: target.url, fetchFn: boundedFetch });
    },
    close: () => (closing ??= close()),
    describe: async (cause) => `${target.display}: ${cause instanceof Error ? cause.message : String(cause)}`,
  };
}
