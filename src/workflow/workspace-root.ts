import path from 'node:path';

/** `--workspace` as given, and the directory it is relative to (where rho was started). */
export interface WorkspaceChoice {
  flag?: string | undefined;
  cwd: string;
}

/**
 * A workflow's primary workspace root: `--workspace` (relative to where rho was started), else
 * the file's `workspace:` (relative to the file), else the file's own directory, as `just` runs
 * recipes in the justfile's directory, wherever it was started from.
 */
export function workspaceOf(fileDirectory: string, declared: string | undefined, choice: WorkspaceChoice): string {
  if (choice.flag !== undefined) return path.resolve(choice.cwd, choice.flag);
  return path.resolve(fileDirectory, declared ?? '.');
}
