import { createHash, scryptSync } from 'node:crypto';

/** A value as canonical JSON: object keys sorted, so equal arguments always digest alike. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The digests of the variables a step receives, by name. A value that is or holds a secret is
 * digested with scrypt under the state's salt, so the state file never lets anyone test
 * guesses of a secret cheaply; the others with SHA-256.
 */
export function digestEnvironment(
  env: Readonly<Record<string, string>>,
  secrets: Readonly<Record<string, string>>,
  salt: string,
): Record<string, string> {
  const secretValues = Object.values(secrets);
  const slow = (value: string) => scryptSync(value, salt, 32).toString('hex');
  const digests: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    digests[`env.${name}`] = secretValues.some((secret) => value.includes(secret)) ? slow(value) : sha256(`${name}\u0000${value}`);
  }
  for (const [name, value] of Object.entries(secrets)) digests[`secrets.${name}`] = slow(value);
  return digests;
}
