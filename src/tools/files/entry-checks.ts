import { ToolError } from '../../host/errors.js';
import type { EntryKind, ResolvedPath } from '../../host/workspace.js';

const described: Readonly<Record<EntryKind, string>> = {
  file: 'a file',
  directory: 'a directory',
  other: 'not a regular file or directory (a pipe, socket or device)',
};

/** Refuses, while the call is prepared, a path that is not the kind of entry the tool works on. */
export function refuseEntry(resolved: ResolvedPath, shown: string, wanted: EntryKind, hint: string): void {
  if (resolved.entry === undefined || resolved.entry === wanted) return;
  throw new ToolError('invalid_arguments', `path: ${shown} is ${described[resolved.entry]}, and this tool needs ${described[wanted]}; ${hint}`, {
    details: { path: shown, fields: ['path'] },
  });
}
