import path from 'node:path';
import { ToolError } from './errors.js';

/** A character that makes a glob match more than one name; a home holding one cannot be spliced into a glob. */
const globCharacters = /[*?[\]{}()!+@\\]/;

/**
 * Why `~` at the start of a path cannot be expanded, or undefined when it can (or the path does
 * not start with `~`). Only the running user's own home is expanded: `~` and `~/…`. `home` is
 * that home, undefined when the user has none; `glob` says the path is spliced into a glob,
 * where a home holding glob characters would match other paths.
 */
export function homePathProblem(text: string, home: string | undefined, glob = false): string | undefined {
  if (!text.startsWith('~')) return undefined;
  const user = /^~([^/]+)/.exec(text)?.[1];
  if (user !== undefined) {
    return `"~${user}" names another user's home: only ~ (yours) is expanded; write that path absolutely, or ./~${user} for a file whose name starts with ~`;
  }
  if (home === undefined) return '~ cannot be expanded: this user has no home directory ($HOME is not set and the account has none); write the path absolutely';
  if (glob && globCharacters.test(home)) return `~ cannot be expanded in a glob: the home directory ${home} holds glob characters; write the path absolutely, with them escaped`;
  return undefined;
}

/** A home-relative path (`~`, `~/…`) made absolute; any other text as it is. Throws the problem `homePathProblem` names. */
export function expandHomePath(text: string, home: string | undefined, glob = false): string {
  const problem = homePathProblem(text, home, glob);
  if (problem) throw new ToolError('invalid_arguments', problem);
  if (!text.startsWith('~')) return text;
  return text === '~' ? home! : path.join(home!, text.slice(2));
}

/** How a path under `home` is written portably (`~/…`); any other path as it is. */
export function showHomePath(absolute: string, home: string | undefined): string {
  if (home === undefined || home === path.sep) return absolute;
  if (absolute === home) return '~';
  return absolute.startsWith(`${home}${path.sep}`) ? `~/${absolute.slice(home.length + 1)}` : absolute;
}
