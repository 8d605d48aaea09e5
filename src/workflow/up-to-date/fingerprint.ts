import { keyedDigest, type DigestKey } from '../../host/keyed-digest.js';

/** A value as canonical JSON: object keys sorted, so equal arguments always digest alike. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/**
 * The digests of the variables a step receives, by name, keyed like every digest in the state:
 * a value may be or hold a secret, and without the key no guess of it can be tested.
 */
export function digestEnvironment(env: Readonly<Record<string, string>>, secrets: Readonly<Record<string, string>>, key: DigestKey): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) digests[`env.${name}`] = keyedDigest(key, `${name}\u0000${value}`);
  for (const [name, value] of Object.entries(secrets)) digests[`secrets.${name}`] = keyedDigest(key, `${name}\u0000${value}`);
  return digests;
}
