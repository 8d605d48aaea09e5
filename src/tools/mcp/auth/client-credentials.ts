import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { extractWWWAuthenticateParams, type AddClientAuthentication, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ToolError } from '../../../host/errors.js';
import type { ChannelAuth } from '../http-channel.js';
import { defaultAssertionAlgorithm } from './assertion-algorithms.js';
import { serverKey } from './credential-store.js';
import { exchangeIdToken, jwtBearerGrantType, jwtBearerRequest, type FetchLike, type IdentityProviderDeclaration } from './cross-app-access.js';

/**
 * OAuth for runs nobody signs in to: the workflow names a client registered with the
 * authorization server, and its secret or private key comes from `secrets:`. The grant is
 * client credentials (the MCP extension SEP-1046) or, with `identity_provider`, an ID token
 * exchanged for a JWT bearer grant (cross-app access, SEP-990; see cross-app-access.ts). The SDK
 * does discovery and the token request; the client authenticates with `client_secret_basic` (a
 * secret) or `private_key_jwt` (a key, RFC 7523). Tokens live for the run only and are masked
 * like secrets.
 */

/** An `oauth:` entry of an HTTP server, its expressions evaluated. */
export interface ClientCredentialsDeclaration {
  client_id: string;
  /** For `client_secret_basic`. */
  client_secret?: string;
  /** A PKCS#8 PEM private key, for `private_key_jwt`. */
  private_key?: string;
  /** The JWS algorithm the key signs with (`private_key_jwt`). */
  algorithm?: string;
  scope?: string;
  /** The authorization server these credentials belong to: they are presented to no other. */
  issuer?: string;
  /** The identity provider whose ID token is exchanged for the grant, instead of client credentials. */
  identity_provider?: IdentityProviderDeclaration;
}

class ClientCredentialsProvider implements OAuthClientProvider {
  private current: OAuthTokens | undefined;
  private client: OAuthClientInformationMixed;
  /** Where discovery found the authorization server and the resource: the grant an identity provider issues names both. */
  private discovery: OAuthDiscoveryState | undefined;
  readonly addClientAuthentication?: AddClientAuthentication;

  constructor(
    private readonly url: URL,
    private readonly declaration: ClientCredentialsDeclaration,
    private readonly onSecret: (value: string) => void,
    private readonly send: FetchLike,
  ) {
    this.client = {
      client_id: declaration.client_id,
      ...(declaration.client_secret !== undefined && { client_secret: declaration.client_secret }),
      ...(declaration.issuer !== undefined && { issuer: declaration.issuer }),
    };
    if (declaration.private_key !== undefined) {
      this.addClientAuthentication = createPrivateKeyJwtAuth({
        issuer: declaration.client_id,
        subject: declaration.client_id,
        privateKey: declaration.private_key,
        alg: declaration.algorithm ?? defaultAssertionAlgorithm,
      });
    }
  }

  /** No redirect: the SDK reads its absence as the client-credentials grant. */
  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'rho',
      redirect_uris: [],
      grant_types: [this.declaration.identity_provider ? jwtBearerGrantType : 'client_credentials'],
      token_endpoint_auth_method: this.declaration.private_key !== undefined ? 'private_key_jwt' : 'client_secret_basic',
      ...(this.declaration.scope !== undefined && { scope: this.declaration.scope }),
    };
  }

  clientInformation(): OAuthClientInformationMixed {
    return this.client;
  }

  /** The SDK stamps the client with the issuer that accepted it; nothing is kept beyond the run. */
  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.client = client;
  }

  tokens(): OAuthTokens | undefined {
    return this.current;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.onSecret(tokens.access_token);
    if (tokens.refresh_token) this.onSecret(tokens.refresh_token);
    this.current = tokens;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  /**
   * `scope` is the configured one (`clientMetadata.scope`): the grant asks for nothing else. With
   * an identity provider, the ID token is first exchanged there for an ID-JAG naming the
   * authorization server discovery found (its issuer) and the resource the server's metadata
   * names (else its URL).
   */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const identityProvider = this.declaration.identity_provider;
    if (!identityProvider) {
      const params = new URLSearchParams({ grant_type: 'client_credentials' });
      if (scope) params.set('scope', scope);
      return params;
    }
    if (!this.discovery) throw new ToolError('internal', 'the token request was prepared before the authorization server was discovered');
    const audience = this.discovery.authorizationServerMetadata?.issuer ?? this.discovery.authorizationServerUrl;
    const resource = this.discovery.resourceMetadata?.resource ?? serverKey(this.url);
    const grant = await exchangeIdToken(identityProvider, { audience, resource, ...(scope && { scope }) }, this.send, this.onSecret);
    return jwtBearerRequest(grant, scope);
  }

  redirectToAuthorization(): void {
    throw new ToolError('internal', 'a grant without a person sends nobody to a browser');
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new ToolError('internal', 'a grant without a person has no PKCE code verifier');
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}

/**
 * How a channel authenticates with its `oauth:` entry; `send` is the channel's fetch, through
 * which an identity provider is reached. A server that answers `403 insufficient_scope` fails
 * the call naming the scope to add to `oauth.scope`: the grant asks for the configured scope
 * only, so asking again could not get more.
 */
export function clientCredentialsAuth(url: URL, declaration: ClientCredentialsDeclaration, onSecret: (value: string) => void, send: FetchLike): ChannelAuth {
  return {
    provider: new ClientCredentialsProvider(url, declaration, onSecret, send),
    checkResponse: (response) => {
      if (response.status !== 403) return;
      const { error, scope } = extractWWWAuthenticateParams(response);
      if (error !== 'insufficient_scope') return;
      const wanted = scope ? ` (${scope})` : '';
      throw new ToolError('unsupported', `${serverKey(url)} needs more scope${wanted} than its oauth: grant has: add it to the server's oauth.scope`);
    },
  };
}
