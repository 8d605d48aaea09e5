import path from 'node:path';
import { directoryEntries, pathExists } from '../disk-paths.js';
import { ToolError } from '../errors.js';

/** What a place of `toolchains.ts` is evaluated with. */
export interface PlaceContext {
  /** The running user's home (`~`); undefined when there is none, and places under it are none. */
  home: string | undefined;
  /** The run's variables (rho's environment with the workflow's `env:` over it). */
  variables: Readonly<Record<string, string | undefined>>;
  /** Where a relative value is resolved (`npm_config_cache=.npm-cache`): the workspace root, a process's usual cwd. */
  base: string;
}

/** The index of the `}` that closes the `${` at `start`, or -1. */
function closingBrace(text: string, start: number): number {
  let depth = 0;
  for (let index = start; index < text.length; index++) {
    if (text.startsWith('${', index)) {
      depth++;
      index++;
    } else if (text[index] === '}' && --depth === 0) {
      return index;
    }
  }
  return -1;
}

/** A path a variable holds: its first entry when it is a list (GOPATH), with `~` expanded and a relative one resolved. */
function variablePath(value: string | undefined, context: PlaceContext): string | undefined {
  const first = value?.split(path.delimiter)[0]?.trim();
  if (!first) return undefined;
  if (first === '~' || first.startsWith('~/')) return context.home === undefined ? undefined : path.join(context.home, first.slice(1));
  if (first.startsWith('~')) return undefined;
  return path.resolve(context.base, first);
}

/**
 * The absolute path a place names (`${CARGO_HOME:-~/.cargo}/registry`), or undefined when it
 * names none: a `${VAR}` without a default that is not set, or `~` without a home.
 */
export function placeOf(place: string, context: PlaceContext): string | undefined {
  if (place.startsWith('${')) {
    const close = closingBrace(place, 0);
    if (close < 0) throw new ToolError('internal', `unbalanced \${ in the place ${place}`);
    const inner = place.slice(2, close);
    const separator = inner.indexOf(':-');
    const name = separator < 0 ? inner : inner.slice(0, separator);
    const chosen = variablePath(context.variables[name], context) ?? (separator < 0 ? undefined : placeOf(inner.slice(separator + 2), context));
    return chosen === undefined ? undefined : path.join(chosen, place.slice(close + 1));
  }
  if (place === '~' || place.startsWith('~/')) return context.home === undefined ? undefined : path.join(context.home, place.slice(1));
  return path.isAbsolute(place) ? path.normalize(place) : undefined;
}

/** Paths a wildcard place matches at most: past that, the rest are not looked for. */
const maxMatches = 1000;

/**
 * The existing paths an absolute pattern names, where a `*` component stands for any one name
 * (`…/versions/*\/etc/npmrc`); a pattern without one names itself when it exists.
 */
export function existingMatches(pattern: string): string[] {
  let found = [path.parse(pattern).root];
  for (const name of pattern.split(path.sep).filter(Boolean)) {
    if (name !== '*') {
      found = found.map((base) => path.join(base, name));
      continue;
    }
    found = found.flatMap((base) => directoryEntries(base).map((entry) => path.join(base, entry)));
    found = found.slice(0, maxMatches);
  }
  return found.filter(pathExists);
}
