/**
 * A value built on its first use, then kept: how rho defers building zod schemas, so a command
 * builds only the schemas it checks something with. The first call's outcome, value or throw,
 * is every later call's.
 */
export function builtOnce<T>(build: () => T): () => T {
  let outcome: { value: T } | { thrown: unknown } | undefined;
  return () => {
    if (outcome === undefined) {
      try {
        outcome = { value: build() };
      } catch (thrown) {
        outcome = { thrown };
      }
    }
    if ('thrown' in outcome) throw outcome.thrown;
    return outcome.value;
  };
}
