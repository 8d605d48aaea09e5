import { createHash } from 'node:crypto';
import path from 'node:path';
import { userStateDir } from './cache-places.js';

/**
 * The default place of a workspace's step logs: `logs/NAME-DIGEST` in the user's state
 * directory, one place per workspace root (its name for a reader, a digest of its path to tell
 * two apart). Outside the workspace, so no step's rules or globs ever reach it, and under the
 * home that confined steps do not see.
 */
export function defaultLogPlace(env: Readonly<Record<string, string | undefined>>, workspaceRoot: string): string | undefined {
  const base = userStateDir(env);
  if (base === undefined) return undefined;
  const name =
    path
      .basename(workspaceRoot)
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^\.+/, '') || 'root';
  const digest = createHash('sha256').update(workspaceRoot).digest('hex').slice(0, 12);
  return path.join(base, 'logs', `${name}-${digest}`);
}
