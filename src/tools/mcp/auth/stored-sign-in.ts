import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { HostEnvironment } from '../../../host/tool.js';
import type { ChannelAuth } from '../http-channel.js';
import { CredentialStore, resolveCredentialsFile } from './credential-store.js';
import { signInNeeded, StoredOAuthProvider } from './stored-provider.js';
import { tokenMasking } from './token-masking.js';

/**
 * The user's stored sign-in for a server, as a run uses it: tokens and refresh, never a browser.
 * A call that needs more scope than the sign-in has (403 `insufficient_scope`) fails at once,
 * naming the sign-in with those scopes. Without HOME or XDG_CONFIG_HOME there is nowhere a
 * sign-in could be, and none is offered.
 */
export function storedSignIn(url: URL, host: Pick<HostEnvironment, 'env' | 'masker'>): ChannelAuth | undefined {
  let file: string;
  try {
    file = resolveCredentialsFile(host.env);
  } catch {
    return undefined;
  }
  const provider = new StoredOAuthProvider(url, new CredentialStore(file), undefined, tokenMasking(host.masker));
  return {
    provider,
    needsRefresh: () => provider.needsRefresh(),
    checkResponse: (response) => {
      if (response.status !== 403) return;
      const { error, scope } = extractWWWAuthenticateParams(response);
      if (error === 'insufficient_scope') throw signInNeeded(url, `needs a sign-in with more scope${scope ? ` (${scope})` : ''}`, scope);
    },
  };
}
