import type { CapabilityRequest } from './capability.js';
import { processDigest } from './keyed-digest.js';
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

/**
 * The digest of a text a request sends (a body, stdin, a header value): requests carry digests,
 * not the text. It is keyed with this process's own key, so a digest shown to a person or a
 * program (an approval prompt, an approver, a gate) gives away nothing of a short secret.
 */
export function contentDigest(text: string): string {
  return processDigest(text);
}

/**
 * The exact identity of a request: the tool that asks (names are unique in a run, so this is
 * also the request's source) and every field the request carries, so whatever a request learns
 * to carry is covered without a change here. A remembered "allow for this run" matches only a
 * request with the same fingerprint: any change of class, path, scope, command, executable,
 * argv, cwd, env, limit, stdin, URL, query, method, header, body or skill needs a new approval.
 * It is a keyed digest, so the values it covers (header values, query strings, env values) are
 * neither kept in memory nor open to guessing.
 */
export function requestFingerprint(request: CapabilityRequest, tool: string): string {
  // A preview is what a person is shown of a request, not one of its facts.
  const { preview: _shown, ...facts } = request as CapabilityRequest & { preview?: unknown };
  return processDigest(JSON.stringify({ tool, request: factsOf(facts) }));
}
