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
 * fetch to the pinned address (`dispatcher`), with every response body cut off (as an error)
 * past `maxResponseBytes`.
 */
async function boundedFetch(dispatcher: Dispatcher, input: string | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, { ...init, dispatcher } as RequestInit);
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

/**
 * A Streamable HTTP channel (the SDK's client transport) to an authorized URL, every request to
 * the address its name was resolved to once, after the check. Redirects are refused: the policy
 * granted this host, not wherever the server points. `headers` may hold credentials; they are
 * sent to this origin only and never appear in a message.
 */
export async function httpChannel(target: HttpTarget, headers: Readonly<Record<string, string>>, pinned: PinnedAddress): Promise<ServerChannel> {
  const { Agent } = await import('undici');
  const dispatcher = new Agent({ connect: { lookup: pinnedLookup(pinned) } });
  const transport = new StreamableHTTPClientTransport(target.url, {
    requestInit: { headers: { ...headers }, redirect: 'error' },
    fetch: (input, init) => boundedFetch(dispatcher, input, init),
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
    begin: async () => {},
    close: () => (closing ??= close()),
    describe: async (cause) => `${target.display}: ${cause instanceof Error ? cause.message : String(cause)}`,
  };
}
