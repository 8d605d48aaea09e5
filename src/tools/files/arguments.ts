import { z } from 'zod';
import { maxPathLength } from '../../host/workspace.js';

export const mebibyte = 1024 * 1024;
export const maxGlobLength = 1000;

/** A path argument: relative to the workspace root, or absolute under a granted root. */
export function pathArgument(description: string) {
  return z.string().min(1).max(maxPathLength).describe(description);
}

/**
 * A glob matched against paths relative to the listed or searched directory. Extended globs
 * are disabled where it is compiled: they can produce regular expressions that backtrack badly.
 */
export const globArgument = () => z.string().min(1).max(maxGlobLength).describe('Glob over paths relative to `path`, e.g. "**/*.ts" (`**` crosses directories)');
