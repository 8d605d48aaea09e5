import { createHash } from 'node:crypto';
import type { CapabilityRequest } from './capability.js';
import { ResolvedPath } from './workspace.js';

/**
 * The facts that name a path. Every field of ResolvedPath is listed (the type makes a new field
 * a compile error here) except the inode identities: an approval is for a path, and the files
 * behind it are guarded by revalidation right before I/O.
 */
type PathFacts = Omit<ResolvedPath, 'relativeToRoot' | 'identity' | 'ancestorIdentity'>;

function pathFacts(resolved: ResolvedPath): PathFacts {
  return {
    requested: resolved.requested,
    lexical: resolved.lexical,
    canonical: resolved.canonical,
    existingAncestor: resolved.existingAncestor,
    scope: resolved.scope,
    root: resolved.root,
    purpose: resolved.purpose,
    state: resolved.state,
    entry: resolved.entry,
    links: resolved.links,
  };
}

/** Plain data with object keys sorted, so equal facts always encode the same way. */
function factsOf(value: unknown): unknown {
  if (value instanceof ResolvedPath) return factsOf(pathFacts(value));
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

/** sha256 (hex) of a text a request sends (a body, stdin): requests carry digests, not the text. */
export function contentDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The exact identity of a request: the tool that asks (names are unique in a run, so this is
 * also the request's source) and every field the request carries, so whatever a request learns
 * to carry is covered without a change here. A remembered "allow for this run" matches only a
 * request with the same fingerprint: any change of class, path, scope, command, executable,
 * argv, cwd, env, limit, stdin, URL, query, method, header, body or skill needs a new approval.
 * It is a digest, so the values it covers (header values, query strings) are not kept in memory.
 */
export function requestFingerprint(request: CapabilityRequest, tool: string): string {
  // A preview is what a person is shown of a request, not one of its facts.
  const { preview: _shown, ...facts } = request as CapabilityRequest & { preview?: unknown };
  return createHash('sha256')
    .update(JSON.stringify({ tool, request: factsOf(facts) }))
    .digest('hex');
}
