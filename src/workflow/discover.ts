import { stat } from 'node:fs/promises';
import path from 'node:path';
import { HostError } from '../host/errors.js';

/** The names a workflow file is found by when a command names none (`rho init` writes the first). */
export const workflowFileNames = ['rho.yml', 'rho.yaml'] as const;

export async function isRegularFile(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
}

/**
 * The workflow file of a command that names none: `rho.yml` or `rho.yaml` in `from` or the
 * nearest directory above it, as `just` finds its justfile. Both in one directory is a usage
 * error (which one was meant cannot be known).
 */
export async function findWorkflowFile(from: string): Promise<string | undefined> {
  for (let directory = path.resolve(from); ; directory = path.dirname(directory)) {
    const present: string[] = [];
    for (const name of workflowFileNames) if (await isRegularFile(path.join(directory, name))) present.push(name);
    if (present.length > 1) throw new HostError('usage', `${directory} holds both ${present.join(' and ')}; keep one, or name the file (rho run FILE)`);
    if (present.length === 1) return path.join(directory, present[0]!);
    if (path.dirname(directory) === directory) return undefined;
  }
}

/** The usage error of a command that names no file where none is found. */
export function noWorkflowFound(from: string, asked?: string): HostError {
  const names = workflowFileNames.join(' or ');
  const what = asked === undefined ? '' : `"${asked}" is not a file, and `;
  return new HostError('usage', `${what}no ${names} is in ${path.resolve(from)} or a directory above it; name a workflow file, or write one with rho init`);
}
