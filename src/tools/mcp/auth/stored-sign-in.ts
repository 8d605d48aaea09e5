import type { ChannelAuth } from '../http-channel.js';
import { CredentialStore, resolveCredentialsFile } from './credential-store.js';
import { StoredOAuthProvider } from './stored-provider.js';

/**
 * The user's stored sign-in for a server, as a run uses it: tokens and refresh, never a browser.
 * Without HOME or XDG_CONFIG_HOME there is nowhere a sign-in could be, and none is offered.
 */
export function storedSignIn(url: URL, env: Readonly<Record<string, string | undefined>>): ChannelAuth | undefined {
  let file: string;
  try {
    file = resolveCredentialsFile(env);
  } catch {
    return undefined;
  }
  const provider = new StoredOAuthProvider(url, new CredentialStore(file));
  return { provider, needsRefresh: () => provider.needsRefresh() };
}
