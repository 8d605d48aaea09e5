/**
 * Secrets reach processes through the environment, never argv or script text, where any user
 * of the machine can read them (`ps`) and where tools echo them. Returns the argument path
 * that holds a secret value outside `env`, or undefined.
 */
export function secretOutsideEnvironment(args: unknown, secretValues: readonly string[]): string | undefined {
  if (secretValues.length === 0) return undefined;
  const visit = (value: unknown, at: string[]): string | undefined => {
    if (typeof value === 'string') return secretValues.some((secret) => value.includes(secret)) ? at.join('.') || '(arguments)' : undefined;
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) {
        const found = visit(item, [...at, String(index)]);
        if (found) return found;
      }
      return undefined;
    }
    if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (at.length === 0 && key === 'env') continue;
        const found = visit(item, [...at, key]);
        if (found) return found;
      }
    }
    return undefined;
  };
  return visit(args, []);
}
