import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ToolError } from '../../../host/errors.js';
import { serverKey, tokensToStore, type CredentialStore, type StoredTokens } from './credential-store.js';

/**
 * The SDK's OAuth client provider over rho's credential store. The SDK does the protocol
 * (metadata discovery and its fallbacks, dynamic registration, PKCE, scopes, token endpoint
 * auth methods, refresh); this provider keeps what it learns per server, for the user only.
 *
 * In a run (`signIn` absent) nobody can use a browser: where the SDK would send the person to
 * the authorization server, the call fails at once with the command that signs in. During
 * `rho mcp login` (`signIn` given) the authorization URL goes to `signIn.open`.
 */

export interface SignInOptions {
  /** The loopback address the authorization server sends the code to. */
  redirectUrl: string;
  /** Shows the authorization URL to the person (and opens a browser where there is one). */
  open(url: URL): void;
  /** A pre-registered client to use instead of registering one. */
  client?: OAuthClientInformationMixed;
  /** Scopes to ask for instead of the server's. */
  scope?: string;
  /** An HTTPS URL of rho's client metadata document, used as the client ID where the authorization server accepts one. */
  clientMetadataUrl?: string;
}

/** The command that signs in to a server, as the message of a run that needs it says. */
export function signInCommand(url: URL, scope?: string): string {
  return `rho mcp login ${serverKey(url)}${scope ? ` --scope ${JSON.stringify(scope)}` : ''}`;
}

export function signInNeeded(url: URL, why: string, scope?: string): ToolError {
  return new ToolError('unsupported', `${serverKey(url)} ${why}; a run never waits for a browser: sign in first with \`${signInCommand(url, scope)}\`, then run again`);
}

function sdkTokens(stored: StoredTokens, now: number): OAuthTokens {
  const { expires_at: expiresAt, ...tokens } = stored;
  return { ...tokens, ...(expiresAt !== undefined && { expires_in: Math.max(0, Math.floor((expiresAt - now) / 1000)) }) };
}

export class StoredOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  private readonly key: string;
  /** The state sent with the authorization request; the loopback redirect must bring it back. */
  readonly expectedState = randomBytes(24).toString('base64url');

  /**
   * `onSecret` receives every token and client secret the provider reads or saves, so that a run
   * masks them wherever they would show (a server that echoes its Authorization header).
   */
  constructor(
    private readonly url: URL,
    private readonly store: CredentialStore,
    private readonly signIn?: SignInOptions,
    private readonly onSecret: (value: string) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {
    this.key = serverKey(url);
  }

  /**
   * In a run there is no redirect to receive, but the SDK reads a missing redirect URL as the
   * client-credentials grant; the loopback address stands in, and the redirect is never made.
   */
  get redirectUrl(): string {
    return this.signIn?.redirectUrl ?? 'http://127.0.0.1/callback';
  }

  get clientMetadataUrl(): string | undefined {
    return this.signIn?.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'rho',
      redirect_uris: this.signIn ? [this.signIn.redirectUrl] : [],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.signIn?.scope !== undefined && { scope: this.signIn.scope }),
    };
  }

  state(): string {
    return this.expectedState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.signIn?.client) return this.signIn.client;
    const stored = (await this.store.get(this.key))?.client;
    if (stored?.client_secret) this.onSecret(stored.client_secret);
    if (stored) return stored as OAuthClientInformationMixed;
    // Registering a client is the first step of a sign-in, which only `rho mcp login` makes.
    if (!this.signIn) throw signInNeeded(this.url, 'needs a sign-in');
    return undefined;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.store.update(this.key, (entry) => ({ ...entry, client: { ...client } }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const stored = (await this.store.get(this.key))?.tokens;
    if (stored) this.revealed(stored);
    return stored && sdkTokens(stored, this.now());
  }

  private revealed(tokens: { access_token: string; refresh_token?: string | undefined }): void {
    this.onSecret(tokens.access_token);
    if (tokens.refresh_token) this.onSecret(tokens.refresh_token);
  }

  /** Whether the stored access token has expired and a refresh token can replace it. */
  async needsRefresh(): Promise<boolean> {
    const stored = (await this.store.get(this.key))?.tokens;
    return stored?.refresh_token !== undefined && stored.expires_at !== undefined && stored.expires_at <= this.now();
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.revealed(tokens);
    await this.store.update(this.key, (entry) => ({ ...entry, tokens: tokensToStore(tokens, this.now()) }));
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    if (!this.signIn) throw signInNeeded(this.url, 'needs a sign-in', authorizationUrl.searchParams.get('scope') ?? undefined);
    this.signIn.open(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new ToolError('internal', 'no PKCE code verifier was saved for this sign-in');
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this.verifier = undefined;
    if (scope === 'discovery' || scope === 'all') this.discovery = undefined;
    if (scope === 'verifier' || scope === 'discovery') return;
    await this.store.update(this.key, (entry) => {
      const { client, tokens } = entry;
      const kept = { ...(scope === 'tokens' && client && { client }), ...(scope === 'client' && tokens && { tokens }) };
      return Object.keys(kept).length > 0 ? kept : undefined;
    });
  }
}
