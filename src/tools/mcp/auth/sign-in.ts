import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolError } from '../../../host/errors.js';
import { boundedFetch } from '../http-channel.js';
import { startupTimeoutMs } from '../server-connection.js';
import { CredentialStore, resolveCredentialsFile, serverKey } from './credential-store.js';
import { StoredOAuthProvider } from './stored-provider.js';

/**
 * `rho mcp login`: signs the user in to one MCP server with OAuth's authorization code flow. The
 * authorization URL is shown (and opened in a browser where there is one); the authorization
 * server sends the code back to a loopback address rho listens on for this sign-in alone; the
 * tokens are kept in the user's credentials file, where runs find them.
 */

export interface SignInRequest {
  url: URL;
  env: Readonly<Record<string, string | undefined>>;
  /** Scopes to ask for; by default the server's (from `WWW-Authenticate` or `scopes_supported`). */
  scope?: string;
  /** A client registered with the authorization server beforehand; without it rho registers one (or uses a metadata document). */
  client?: { client_id: string; client_secret?: string };
  /** A client ID metadata document (an HTTPS URL) to offer instead of registering a client. */
  clientMetadataUrl?: string;
  /** Shows the authorization URL to the person. */
  open(url: URL): void;
  /** How long the person has to finish in the browser. */
  waitMs: number;
  signal: AbortSignal;
}

export interface SignInOutcome {
  /** Where the tokens are kept. */
  file: string;
  /** `signed_in`, or `already` when the stored tokens were still good. */
  result: 'signed_in' | 'already';
}

const callbackPath = '/callback';

/** Listens on 127.0.0.1 for the one redirect of this sign-in: its code, when the state matches. */
async function listenForCode(expectedState: () => string) {
  let settle!: { resolve(code: string): void; reject(error: Error): void };
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  // Awaited only once the person is sent to the browser; a refusal that comes first is kept for then.
  code.catch(() => undefined);
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== callbackPath) {
      response.writeHead(404).end();
      return;
    }
    const error = url.searchParams.get('error');
    const received = url.searchParams.get('code');
    const state = url.searchParams.get('state');
    const page = (text: string) => response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`${text}\n`);
    if (state !== expectedState()) {
      page('rho: this sign-in answer does not belong to the sign-in in progress; it was ignored.');
      return;
    }
    if (error) {
      page('rho: the sign-in was refused. You can close this tab.');
      const described = url.searchParams.get('error_description');
      settle.reject(new ToolError('approval_denied', `the authorization server refused the sign-in: ${error}${described ? ` (${described.slice(0, 300)})` : ''}`));
      return;
    }
    if (!received) {
      page('rho: the answer had no code.');
      return;
    }
    page('rho: signed in. You can close this tab.');
    settle.resolve(received);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { redirectUrl: `http://127.0.0.1:${port}${callbackPath}`, code, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function transportFor(url: URL, provider: StoredOAuthProvider): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: boundedFetch, requestInit: { redirect: 'error' } });
}

/**
 * Completes an MCP handshake over the transport and lists the server's tools, as a run starts,
 * then ends the session: whether that succeeds is all a sign-in needs to know.
 */
async function handshake(transport: StreamableHTTPClientTransport, signal: AbortSignal): Promise<void> {
  const client = new Client({ name: 'rho', version: '1' }, { capabilities: {} });
  try {
    await client.connect(transport, { signal, timeout: startupTimeoutMs });
    if (client.getServerCapabilities()?.tools) await client.listTools(undefined, { signal, timeout: startupTimeoutMs });
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Waits for the code, the person's deadline or the signal, whichever comes first. */
function within<T>(promise: Promise<T>, waitMs: number, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ToolError('timeout', `nobody finished the sign-in within ${Math.round(waitMs / 1000)} s; run the command again`)), waitMs);
    const stop = () => reject(new ToolError('interrupted', 'the sign-in was interrupted'));
    signal.addEventListener('abort', stop, { once: true });
    promise.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    });
  });
}

export async function signIn(request: SignInRequest): Promise<SignInOutcome> {
  const file = resolveCredentialsFile(request.env);
  const store = new CredentialStore(file);
  let provider: StoredOAuthProvider | undefined;
  const loopback = await listenForCode(() => provider!.expectedState);
  try {
    provider = new StoredOAuthProvider(request.url, store, {
      redirectUrl: loopback.redirectUrl,
      open: request.open,
      ...(request.scope !== undefined && { scope: request.scope }),
      ...(request.client && { client: request.client }),
      ...(request.clientMetadataUrl !== undefined && { clientMetadataUrl: request.clientMetadataUrl }),
    });
    // A pre-registered client replaces whatever rho registered before.
    if (request.client) await store.update(serverKey(request.url), (entry) => ({ ...entry, client: request.client }));
    if (request.scope !== undefined) {
      await authorizeWithScope(request, provider, loopback.code);
    } else {
      // The transport that meets the 401 keeps what it said (resource metadata URL, scope) for the code exchange.
      const transport = transportFor(request.url, provider);
      try {
        await handshake(transport, request.signal);
        return { file, result: 'already' };
      } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw describe(request.url, error);
      }
      const code = await within(loopback.code, request.waitMs, request.signal);
      await transport.finishAuth(code).catch((error: unknown) => {
        throw describe(request.url, error);
      });
    }
    await handshake(transportFor(request.url, provider), request.signal).catch((error: unknown) => {
      throw describe(request.url, error);
    });
    return { file, result: 'signed_in' };
  } finally {
    await loopback.close();
  }
}

/**
 * A sign-in for the scopes the person asked for, which win over the server's (the transport would
 * take those of its `WWW-Authenticate`): the tokens held so far are dropped, the client kept.
 */
async function authorizeWithScope(request: SignInRequest, provider: StoredOAuthProvider, code: Promise<string>): Promise<void> {
  await provider.invalidateCredentials('tokens');
  const options = { serverUrl: request.url, scope: request.scope, fetchFn: boundedFetch };
  try {
    if ((await auth(provider, options)) === 'AUTHORIZED') return;
    const received = await within(code, request.waitMs, request.signal);
    await auth(provider, { ...options, authorizationCode: received });
  } catch (error) {
    throw describe(request.url, error);
  }
}

function describe(url: URL, error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  return new ToolError('execution_failed', `signing in to ${serverKey(url)} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}
