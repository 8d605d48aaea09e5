import path from 'node:path';
import { ToolError } from './errors.js';

/** What a call touches, declared before it runs so the scheduler can overlap safe calls. */
export type Resource =
  | { kind: 'path'; path: string }
  | { kind: 'tree'; path: string }
  | { kind: 'process'; id: string }
  | { kind: 'session' }
  | { kind: 'key'; owner: string; key: string };

export type ResourceKind = Resource['kind'];
export type AccessMode = 'shared' | 'exclusive';

export interface ResourceAccess {
  mode: AccessMode;
  resource: Resource;
}

/** What logs and debug output may show of an access: its mode and the kind of resource, never the value. */
export interface RedactedAccess {
  mode: AccessMode;
  kind: ResourceKind;
}

export function redactedResource(access: ResourceAccess): RedactedAccess {
  return { mode: access.mode, kind: access.resource.kind };
}

const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');

/**
 * Makes JSON.stringify and util.inspect show `view` instead of the object's fields. The hooks
 * are non-enumerable, so equality checks and spreads see only the data.
 */
function withRedactedDisplay<T extends object>(value: T, view: () => unknown): T {
  Object.defineProperty(value, 'toJSON', { value: view, enumerable: false });
  Object.defineProperty(value, inspectSymbol, { value: view, enumerable: false });
  return value;
}

function access(mode: AccessMode, resource: Resource): ResourceAccess {
  const hidden = withRedactedDisplay({ ...resource }, () => ({ kind: resource.kind }));
  const declared: ResourceAccess = { mode, resource: hidden };
  return withRedactedDisplay(declared, () => redactedResource(declared));
}

export const shared = (resource: Resource): ResourceAccess => access('shared', resource);
export const exclusive = (resource: Resource): ResourceAccess => access('exclusive', resource);

/**
 * A namespaced opaque key. The owner is a stable namespace (a tool or extension name) so two
 * owners' keys never collide; it may not contain `:` because the key is shown as `owner:key`.
 */
export function opaqueKey(owner: string, key: string): Resource {
  if (owner.length === 0 || owner.includes(':')) {
    throw new ToolError(
      'internal',
      `an opaque resource key needs a non-empty owner namespace without ':' (got ${JSON.stringify(owner)}); pass the tool or extension name as the owner`,
    );
  }
  if (key.length === 0) {
    throw new ToolError('internal', `the opaque resource key of owner ${owner} is empty; pass a non-empty key`);
  }
  return { kind: 'key', owner, key };
}

const kindDescriptions: Record<ResourceKind, string> = {
  path: 'file path',
  tree: 'directory tree',
  process: 'managed process',
  session: 'session state',
  key: 'opaque key',
};

/** A display name for the kind of a resource; it never includes the resource's value. */
export function describeResourceKind(resource: Resource | ResourceKind): string {
  return kindDescriptions[typeof resource === 'string' ? resource : resource.kind];
}

function withoutTrailingSeparator(canonical: string): string {
  const root = path.parse(canonical).root;
  let end = canonical.length;
  while (end > root.length && canonical[end - 1] === path.sep) end -= 1;
  return canonical.slice(0, end);
}

/**
 * The path itself (without a trailing separator) and every directory that contains it, nearest
 * first, component-wise: `/a/b` is inside `/a` and `/`, never inside `/a/bc`. The one definition
 * of containment for trees; the scheduler's conflict index builds its tree of paths from it.
 */
export function containersOf(canonical: string): string[] {
  const normal = withoutTrailingSeparator(canonical);
  const root = path.parse(normal).root;
  const containers = [normal];
  for (let end = normal.length - 1; end >= root.length; end -= 1) {
    if (normal[end] === path.sep) containers.push(normal.slice(0, end));
  }
  if (root.length > 0 && normal !== root) containers.push(root);
  return containers;
}

const isSameOrInside = (outer: string, inner: string): boolean => containersOf(inner).includes(withoutTrailingSeparator(outer));

export function resourcesOverlap(a: Resource, b: Resource): boolean {
  switch (a.kind) {
    case 'path':
      if (b.kind === 'path') return withoutTrailingSeparator(a.path) === withoutTrailingSeparator(b.path);
      return b.kind === 'tree' && isSameOrInside(b.path, a.path);
    case 'tree':
      if (b.kind === 'path') return isSameOrInside(a.path, b.path);
      return b.kind === 'tree' && (isSameOrInside(a.path, b.path) || isSameOrInside(b.path, a.path));
    case 'process':
      return b.kind === 'process' && a.id === b.id;
    case 'session':
      return b.kind === 'session';
    case 'key':
      return b.kind === 'key' && a.owner === b.owner && a.key === b.key;
  }
}

/** Shared access overlaps shared access; an exclusive access conflicts with any overlapping one. */
export function accessesConflict(a: ResourceAccess, b: ResourceAccess): boolean {
  return (a.mode === 'exclusive' || b.mode === 'exclusive') && resourcesOverlap(a.resource, b.resource);
}
