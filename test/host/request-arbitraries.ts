import fc from 'fast-check';
import type { CapabilityRequest, EnvMode } from '../../src/host/capability.js';
import { ResolvedPath } from '../../src/host/workspace.js';

const text = fc.string({ minLength: 1, maxLength: 8 });

const envMode: fc.Arbitrary<EnvMode> = fc.oneof(
  fc.constant({ mode: 'inherit' as const }),
  fc.constant({ mode: 'empty' as const }),
  fc.record({ mode: fc.constant('inherit_except' as const), names: fc.array(text, { maxLength: 2 }) }),
  fc.record({ mode: fc.constant('inherit_only' as const), names: fc.array(text, { maxLength: 2 }) }),
);

const processFacts = fc.record({
  cwd: fc.constantFrom('/w', '/w/sub'),
  executable: fc.record({
    requested: fc.constantFrom('npm', 'node', './bin/tool'),
    resolved: fc.constantFrom('/usr/bin/npm', '/usr/bin/node', '/w/bin/tool'),
    lookup: fc.constantFrom('exact' as const, 'path_search' as const),
  }),
  argv: fc.array(text, { maxLength: 3 }),
  envMode,
  env: fc.dictionary(fc.constantFrom('NODE_ENV', 'CI', 'NPM_TOKEN'), fc.constantFrom('1', 'production'), { maxKeys: 2 }),
  outputLimitBytes: fc.integer({ min: 1, max: 1 << 24 }),
  wallLimitMs: fc.integer({ min: 1, max: 600_000 }),
  stdinDigest: fc.constantFrom('5d41402a', '7d793037'),
});

/** Any capability request, its paths drawn from `paths` (resolved by a real workspace). */
export function capabilityRequest(paths: readonly ResolvedPath[]): fc.Arbitrary<CapabilityRequest> {
  const resolved = fc.constantFrom(...paths);
  return fc.oneof(
    fc.record({ class: fc.constant('read' as const), path: resolved, target: fc.constantFrom('file' as const, 'tree' as const) }),
    fc.record({ class: fc.constant('write' as const), path: resolved }),
    processFacts.map((facts) => ({ ...facts, class: 'process' as const, invocation: 'direct' as const })),
    fc
      .record({ facts: processFacts, shell: fc.constantFrom('sh' as const, 'bash' as const), script: text })
      .map(({ facts, shell, script }) => ({ ...facts, class: 'shell' as const, invocation: 'shell' as const, shell, script })),
    fc
      .record({
        class: fc.constant('network' as const),
        method: fc.constantFrom('GET', 'POST', 'CONNECT'),
        scheme: fc.constantFrom('http' as const, 'https' as const, 'tunnel' as const),
        endpoint: fc.constantFrom({ hostname: 'example.org', port: 443 }, { hostname: 'example.org', port: 8443 }, { hostname: '127.0.0.1', port: 8080 }),
        url: fc.constantFrom('https://example.org/a', 'https://example.org/b'),
        queryDigest: fc.constantFrom('0b1e6d4c', '9f86d081'),
        headers: fc.array(fc.record({ name: fc.constantFrom('accept', 'x-api-key'), valueDigest: fc.constantFrom('2c26b46b', 'fcde2b2e') }), { maxLength: 2 }),
        bodyDigest: fc.constantFrom('e3b0c442', '4e074085'),
      })
      .map(({ endpoint: { hostname, port }, ...facts }) => ({ ...facts, hostname, port, host: port === 443 ? hostname : `${hostname}:${port}` })),
    fc.record({ class: fc.constant('network_tool' as const), tool: fc.constantFrom('gh', 'gitlab') }),
    fc.record({ class: fc.constant('skill' as const), name: fc.constantFrom('notes', 'release'), path: resolved }),
    fc.record({ class: fc.constant('instructions' as const), path: resolved }),
  );
}

type Location = readonly (string | number)[];

/** Every place a request can change: each primitive leaf, each path, and each array (which can grow). */
export function changeableLocations(value: unknown, at: Location = []): Location[] {
  if (value instanceof ResolvedPath) return [at];
  if (Array.isArray(value)) return [at, ...value.flatMap((item, index) => changeableLocations(item, [...at, index]))];
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => changeableLocations(item, [...at, key]));
  }
  return [at];
}

function changedValue(value: unknown, paths: readonly ResolvedPath[]): unknown {
  if (value instanceof ResolvedPath) return paths.find((other) => other.requested !== value.requested)!;
  if (Array.isArray(value)) return [...value, 'added'];
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'string') return `${value}~`;
  throw new Error(`cannot change ${String(value)}`);
}

/** A copy of the request with one fact changed (paths stay ResolvedPath instances). */
export function withChange(request: CapabilityRequest, location: Location, paths: readonly ResolvedPath[]): CapabilityRequest {
  const change = (value: unknown, rest: Location): unknown => {
    if (rest.length === 0) return changedValue(value, paths);
    const [key, ...tail] = rest as [string | number, ...(string | number)[]];
    if (Array.isArray(value)) return value.map((item, index) => (index === key ? change(item, tail) : item));
    const record = value as Record<string, unknown>;
    return { ...record, [key]: change(record[key as string], tail) };
  };
  return change(request, location) as CapabilityRequest;
}
