import { HostError } from '../host/errors.js';
import { writeFile } from 'node:fs/promises';
import { starterWorkflow } from '../workflow/starter.js';

/** Writes the starter workflow; refuses to replace an existing file unless forced. */
export async function writeStarterWorkflow(file: string, force: boolean): Promise<void> {
  try {
    await writeFile(file, starterWorkflow, { flag: force ? 'w' : 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new HostError('usage', `${file} already exists; use --force to replace it`);
    throw error;
  }
}
