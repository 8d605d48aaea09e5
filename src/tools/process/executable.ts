import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ExecutableSelection } from '../../host/capability.js';
import { ToolError } from '../../host/errors.js';

async function isExecutableFile(candidate: string): Promise<boolean> {
  try {
    if (!(await stat(candidate)).isFile()) return false;
    await access(candidate, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The directories of a PATH value that are searched. Relative entries (including the empty
 * entry, which means "the current directory") are skipped: they would let a file in the
 * workspace stand in for a system program, and `process(rm)` must mean the `rm` on PATH.
 */
export function searchDirectories(pathVariable: string | undefined): string[] {
  return (pathVariable ?? '').split(path.delimiter).filter((entry) => path.isAbsolute(entry));
}

/**
 * Resolves the program a call names, once, at preparation: a name with a `/` is an exact path
 * (relative to the call's cwd), anything else is searched on the host's PATH. The request
 * carries the absolute result, and that is what runs.
 */
export async function resolveExecutable(command: string, options: { pathVariable: string | undefined; cwd: string }): Promise<ExecutableSelection> {
  if (command.includes('/')) {
    const resolved = path.resolve(options.cwd, command);
    if (!(await isExecutableFile(resolved))) {
      throw new ToolError('not_found', `executable ${JSON.stringify(command)} is not an executable file (resolved to ${resolved})`, {
        details: { executable: command },
      });
    }
    return { requested: command, resolved, lookup: 'exact' };
  }
  if (command === '.' || command === '..') {
    throw new ToolError('invalid_arguments', `${JSON.stringify(command)} is not a program name`);
  }
  const directories = searchDirectories(options.pathVariable);
  for (const directory of directories) {
    const candidate = path.join(directory, command);
    if (await isExecutableFile(candidate)) return { requested: command, resolved: candidate, lookup: 'path_search' };
  }
  throw new ToolError(
    'not_found',
    `executable ${JSON.stringify(command)} was not found on PATH (searched ${directories.length} director${directories.length === 1 ? 'y' : 'ies'}); install it or name it by path`,
    { details: { executable: command } },
  );
}
