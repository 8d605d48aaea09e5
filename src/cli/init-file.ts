import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { HostError } from '../host/errors.js';
import { starterWorkflow } from '../workflow/starter.js';

/**
 * Writes the starter workflow, creating its directory when missing; refuses to replace an
 * existing file unless forced. Returns the directory it created, if any.
 */
export async function writeStarterWorkflow(file: string, force: boolean): Promise<{ createdDirectory?: string }> {
  const directory = path.dirname(file);
  let created: string | undefined;
  try {
    created = await mkdir(directory, { recursive: true });
  } catch (error) {
    throw new HostError('usage', `cannot create the directory ${directory} for ${file}: ${describe(error)}`, { cause: error });
  }
  try {
    await writeFile(file, starterWorkflow, { flag: force ? 'w' : 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new HostError('usage', `${file} already exists; use --force to replace it`, { cause: error });
    throw new HostError('usage', `cannot write ${file}: ${describe(error)}`, { cause: error });
  }
  return created === undefined ? {} : { createdDirectory: directory };
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'a file stands where a directory should be';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'the file system is read-only';
  if (code === 'EISDIR') return 'it is a directory';
  return (error as Error).message;
}
