import path from 'node:path';
import { exclusive, opaqueKey, shared, type Resource, type ResourceAccess } from '../host/resources.js';

/**
 * Turns a step's `resources:` entries into scheduler accesses: `owner:key` is an opaque key,
 * `dir/**` a directory tree, anything else a path (relative to the workspace root).
 */
export function parseStepResources(declared: { shared: readonly string[]; exclusive: readonly string[] }, root: string): ResourceAccess[] {
  const toResource = (entry: string): Resource => {
    const key = /^([a-z][a-z0-9_-]*):(?!\/)(.+)$/.exec(entry);
    if (key) return opaqueKey(key[1]!, key[2]!);
    if (entry === '**') return { kind: 'tree', path: root };
    if (entry.endsWith('/**')) return { kind: 'tree', path: path.resolve(root, entry.slice(0, -3) || path.sep) };
    return { kind: 'path', path: path.resolve(root, entry) };
  };
  return [...declared.shared.map((entry) => shared(toResource(entry))), ...declared.exclusive.map((entry) => exclusive(toResource(entry)))];
}
