import { ToolError } from '../../../host/errors.js';

/**
 * Cross-app access (SEP-990, enterprise-managed authorization): the organisation's identity
 * provider, not a person at a browser, decides what rho may reach. rho holds an ID token the
 * identity provider issued (a CI secret) and exchanges it there for an identity assertion
 * authorization grant, an ID-JAG (RFC 8693 token exchange), naming the MCP server's
 * authorization server as its audience and the MCP server as its resource; the authorization
 * server then takes that grant for an access token (RFC 7523 JWT bearer grant).
 */

/** `identity_provider:` of an HTTP server's `oauth:` entry, its expressions evaluated. */
export interface IdentityProviderDeclaration {
  /** Where the ID token is exchanged: the identity provider's token endpoint. */
  token_endpoint: string;
  /** rho's client at the identity provider. */
  client_id: string;
  /** That client's secret, for `client_secret_basic`; without it the client is public. */
  client_secret?: string;
  /** The ID token the identity provider issued, from `secrets:`. */
  id_token: string;
}

export const jwtBearerGrantType = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const tokenExchangeGrantType = 'urn:ietf:params:oauth:grant-type:token-exchange';
const idTokenType = 'urn:ietf:params:oauth:token-type:id_token';
const idJagTokenType = 'urn:ietf:params:oauth:token-type:id-jag';

/** Most bytes rho reads of the identity provider's answer: a grant is a JWT of a few KiB. */
const maxAnswerBytes = 64 * 1024;
/** Most characters of an identity provider's error description that a message repeats. */
const maxDescriptionLength = 300;
/** A compact JWS: three base64url parts. */
const compactJwt = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** What the grant is for: the authorization server that takes it, the MCP server it opens, the scopes asked. */
export interface GrantTarget {
  /** The authorization server's issuer identifier. */
  audience: string;
  /** The MCP server's resource identifier. */
  resource: string;
  scope?: string;
}

export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** Untrusted text from the identity provider, as a message may repeat it: one line, printable, short. */
function shown(text: unknown): string {
  return typeof text === 'string' ? text.replace(/[^\x20-\x7e]/g, ' ').slice(0, maxDescriptionLength) : '';
}

function refusal(endpoint: URL, why: string): ToolError {
  return new ToolError('execution_failed', `the identity provider at ${endpoint.origin}${endpoint.pathname} did not exchange the ID token for an authorization grant: ${why}`);
}

async function answerOf(response: Response, endpoint: URL): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (Buffer.byteLength(text) > maxAnswerBytes) throw refusal(endpoint, `its answer is larger than ${maxAnswerBytes / 1024} KiB`);
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw refusal(endpoint, `it answered ${response.status} with something other than JSON`);
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) throw refusal(endpoint, `it answered ${response.status} with JSON that is not an object`);
  return answer as Record<string, unknown>;
}

/**
 * Exchanges the ID token for an ID-JAG at the identity provider (RFC 8693), through `send` (the
 * channel's fetch: the identity provider is a host the policy must grant). A refusal, or an
 * answer that is not an ID-JAG, fails with what the identity provider said. `onSecret` gets the
 * grant before it is returned, so that it is masked wherever it would show.
 */
export async function exchangeIdToken(provider: IdentityProviderDeclaration, target: GrantTarget, send: FetchLike, onSecret: (value: string) => void): Promise<string> {
  const endpoint = new URL(provider.token_endpoint);
  const body = new URLSearchParams({
    grant_type: tokenExchangeGrantType,
    requested_token_type: idJagTokenType,
    audience: target.audience,
    resource: target.resource,
    subject_token: provider.id_token,
    subject_token_type: idTokenType,
  });
  if (target.scope) body.set('scope', target.scope);
  const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' });
  if (provider.client_secret === undefined) body.set('client_id', provider.client_id);
  else headers.set('authorization', `Basic ${Buffer.from(`${encodeURIComponent(provider.client_id)}:${encodeURIComponent(provider.client_secret)}`).toString('base64')}`);
  let response: Response;
  try {
    response = await send(endpoint, { method: 'POST', headers, body, redirect: 'error' });
  } catch (cause) {
    if (cause instanceof ToolError) throw cause;
    throw new ToolError('execution_failed', `the identity provider at ${endpoint.origin} could not be reached: ${(cause as Error).message}`, { cause });
  }
  const answer = await answerOf(response, endpoint);
  if (!response.ok) {
    const description = shown(answer.error_description);
    throw refusal(endpoint, `it refused: ${shown(answer.error) || `HTTP ${response.status}`}${description ? ` (${description})` : ''}`);
  }
  const grant = answer.access_token;
  if (typeof grant !== 'string' || !compactJwt.test(grant) || grant.length > maxAnswerBytes) throw refusal(endpoint, 'its answer holds no grant (a JWT in access_token)');
  onSecret(grant);
  if (answer.issued_token_type !== idJagTokenType)
    throw refusal(endpoint, `it issued a token of type ${shown(answer.issued_token_type) || '(none)'}, not an ID-JAG (${idJagTokenType})`);
  return grant;
}

/** The token request that trades the grant for an access token at the authorization server (RFC 7523). */
export function jwtBearerRequest(grant: string, scope?: string): URLSearchParams {
  const params = new URLSearchParams({ grant_type: jwtBearerGrantType, assertion: grant });
  if (scope) params.set('scope', scope);
  return params;
}
