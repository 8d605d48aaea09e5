import { minMaskableLength, type SecretMasker } from '../../../host/masking.js';

/**
 * Adds each token or client secret an OAuth provider reads or receives to the run's masker, so
 * that it is masked wherever it would show (a server that echoes its Authorization header).
 * Tokens are read on every request: each is added once.
 */
export function tokenMasking(masker: SecretMasker | undefined): (secret: string) => void {
  const masked = new Set<string>();
  return (secret) => {
    if (masked.has(secret) || secret.length < minMaskableLength) return;
    masked.add(secret);
    masker?.add(secret);
  };
}
