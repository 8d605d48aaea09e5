import path from 'node:path';
import type { ResolvedPath } from '../../host/workspace.js';
import { CheckedDirectory } from './checked-directory.js';

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
 * Opens, checked, the directory a write lands in. For a missing target that is its nearest
 * existing parent (it must still be the directory that was resolved), then each missing
 * directory created one at a time inside the one before: anything that appears there meanwhile
 * (a symlink above all) makes the call fail instead of being followed. The caller closes it.
 */
export async function openTargetDirectory(resolved: ResolvedPath, shown: string): Promise<CheckedDirectory> {
  if (resolved.state === 'existing') return CheckedDirectory.open(path.dirname(resolved.canonical), shown);
  let directory = await CheckedDirectory.open(resolved.existingAncestor, shown, resolved.ancestorIdentity);
  const missing = path.relative(resolved.existingAncestor, path.dirname(resolved.canonical));
  for (const name of missing === '' ? [] : missing.split(path.sep)) {
    try {
      const child = await directory.createChild(name, shown);
      await directory.close();
      directory = child;
    } catch (error) {
      await directory.close();
      throw error;
    }
  }
  return directory;
}
