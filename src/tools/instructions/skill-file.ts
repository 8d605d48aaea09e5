import path from 'node:path';
import { ToolError } from '../../host/errors.js';
import type { ResolvedPath, Workspace } from '../../host/workspace.js';

/** A skill name is one path component that cannot climb, hide, or need quoting. */
export const skillNamePattern = /^[a-z0-9][a-z0-9-]{0,63}$/;

export const skillDirectory = '.agents/skills';

/** Where a skill lives, relative to the workspace root. */
export function skillFilePath(name: string): string {
  return `${skillDirectory}/${name}/SKILL.md`;
}

/**
 * Resolves `.agents/skills/<name>/SKILL.md` and accepts it only when its canonical path is
 * exactly that file under the canonical workspace root: a symlink anywhere on the way that
 * leads somewhere else is refused, so a skill grant can never reach another file.
 */
export async function resolveSkillFile(workspace: Workspace, name: string): Promise<ResolvedPath> {
  if (!skillNamePattern.test(name)) throw new ToolError('invalid_arguments', `"${name}" is not a skill name (${skillNamePattern.source})`);
  const relative = skillFilePath(name);
  let resolved: ResolvedPath;
  try {
    resolved = await workspace.resolveForRead(relative);
  } catch (cause) {
    if (cause instanceof ToolError && cause.kind === 'not_found') {
      throw new ToolError('not_found', `no skill named ${name}: ${relative} does not exist in the workspace`, { cause });
    }
    throw cause;
  }
  const expected = path.join(workspace.root, ...relative.split('/'));
  if (resolved.scope !== 'workspace' || resolved.canonical !== expected) {
    throw new ToolError('path_refused', `skill ${name} refused: ${relative} leads elsewhere through a symlink; skills are read only from their own directory`);
  }
  if (resolved.entry !== 'file') throw new ToolError('path_refused', `skill ${name} refused: ${relative} is not a regular file`);
  return resolved;
}
