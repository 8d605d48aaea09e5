import path from 'node:path';
import { findInDirectories } from './executable.js';

/**
 * Where rho looks for the programs it trusts to keep a run safe — a sandbox's, and a hook's
 * program named without a path — in the order a default PATH lists them. Only an administrator
 * writes these. PATH itself is never searched for such programs: `npm run` and `npx` put the
 * project's `node_modules/.bin` first, and a directory in the home (`~/.local/bin`) is written by
 * anything the user runs unconfined; a program planted there would confine, or answer, every
 * later run.
 */
export const systemDirectories: readonly string[] = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** The first executable named `name` in the system directories, or undefined. */
export function findSystemProgram(name: string): string | undefined {
  return findInDirectories(name, systemDirectories);
}

/**
 * The PATH a hook program gets: the directory of the Node that runs rho (a hook's `node` is that
 * one), then the system directories. A hook that starts `git` or a script whose first line is
 * `#!/usr/bin/env node` finds them there, never in a directory a step could have filled.
 */
export function trustedSearchPath(node: string = process.execPath): string {
  return [...new Set([path.dirname(node), ...systemDirectories])].join(path.delimiter);
}
