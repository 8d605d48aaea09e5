import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../host/errors.js';
import type { ResolvedPath } from '../../host/workspace.js';

/** Whether a missing write target also lacks its parent directory. */
export function parentIsMissing(resolved: ResolvedPath): boolean {
  return resolved.state === 'missing' && path.dirname(resolved.canonical) !== resolved.existingAncestor;
}

/** The outermost directory a write with a missing parent will create (what two such writes race for). */
export function firstMissingDirectory(resolved: ResolvedPath): string {
  const [first] = path.relative(resolved.existingAncestor, path.dirname(resolved.canonical)).split(path.sep);
  return path.join(resolved.existingAncestor, first!);
}

/**
 * Creates the directories between a missing target's nearest existing parent and the target,
 * one at a time: anything that appears there meanwhile (a symlink above all) makes the call fail
 * instead of being followed.
 */
export async function createMissingDirectories(resolved: ResolvedPath, shown: string): Promise<void> {
  let directory = resolved.existingAncestor;
  for (const name of path.relative(resolved.existingAncestor, path.dirname(resolved.canonical)).split(path.sep)) {
    directory = path.join(directory, name);
    try {
      await mkdir(directory);
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new ToolError('conflict', `${shown}: directory ${directory} appeared while this call waited; nothing was written`, { cause });
      }
      throw cause;
    }
  }
  if ((await realpath(directory)) !== directory) {
    throw new ToolError('path_refused', `${shown} refused: its new parent directory resolves elsewhere`, { details: { path: shown } });
  }
}
