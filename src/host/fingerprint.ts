import type { CapabilityRequest } from './capability.js';
import { ResolvedPath } from './workspace.js';

function factsOf(value: unknown): unknown {
  if (value instanceof ResolvedPath) {
    return {
      requested: value.requested,
      lexical: value.lexical,
      canonical: value.canonical,
      scope: value.scope,
      state: value.state,
      entry: value.entry,
    };
  }
  if (Array.isArray(value)) return value.map(factsOf);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, factsOf((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/**
 * The exact identity of a request: every structured fact, in a stable order. A remembered
 * "allow for this run" matches only a request with the same fingerprint, so any change of
 * class, path, scope, command, argv, cwd, env mode, limit, URL or skill needs a new approval.
 */
export function requestFingerprint(request: CapabilityRequest, tool: string): string {
  return JSON.stringify({ tool, request: factsOf(request) });
}
