import dnsPromises from 'node:dns/promises';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, beforeAll } from 'vitest';

export type Answer = { address: string; family: 4 | 6 } | undefined;

/**
 * For the tests of one file, `lookup` answers the names `answer` knows as a hostile or
 * misconfigured DNS server would; every other name goes to the real resolver. The builtin is
 * patched and its ESM bindings synced, so code that imported `lookup` by name sees the answers;
 * the real resolver is back after the file (test files share one module registry).
 */
export function answerLookups(answer: (hostname: string) => Answer): void {
  const real = dnsPromises.lookup;
  beforeAll(() => {
    dnsPromises.lookup = (async (hostname: string, options: object) => answer(hostname) ?? real(hostname, options)) as typeof real;
    syncBuiltinESMExports();
  });
  afterAll(() => {
    dnsPromises.lookup = real;
    syncBuiltinESMExports();
  });
}
