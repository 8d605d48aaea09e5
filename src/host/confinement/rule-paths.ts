import { lstatSync } from 'node:fs';
import path from 'node:path';
import { directoryEntries } from '../disk-paths.js';
import { readRuleCovers, type Rule } from '../rules.js';

/** A character that makes a glob segment match more than one name. */
const globSyntax = /[*?[\]{}()!+@\\]/;

/**
 * The absolute path a glob's literal segments name before its first wildcard, and whether the
 * glob is literal throughout (it names exactly that one path). Relative globs start at the
 * workspace root; absolute ones stand for themselves.
 */
export function literalPrefix(glob: string, workspaceRoot: string): { path: string; literal: boolean } {
  const absolute = path.isAbsolute(glob);
  const segments = glob.split('/').filter((segment, index) => segment !== '' || (index === 0 && !absolute));
  const literal: string[] = [];
  for (const segment of segments) {
    if (globSyntax.test(segment)) break;
    if (segment !== '.') literal.push(segment);
  }
  const base = absolute ? path.sep : workspaceRoot;
  return { path: path.join(base, ...literal), literal: literal.length === segments.filter((s) => s !== '.').length };
}

/** Whether a glob is a literal directory followed by `/**` (all of one tree). */
function isWholeTree(glob: string): boolean {
  return glob.endsWith('/**') && !globSyntax.test(glob.slice(0, -3));
}

/**
 * Whether a write glob names less than the directory a sandbox makes writable for it (its
 * literal prefix): a segment after the prefix that picks names (`*.go`, `build-*`, `{a,b}`),
 * rather than `*` or `**`, which cover every name. A rule for every `*.go` file below the
 * workspace root makes the whole workspace writable to processes; `write(dist/**)` and
 * `write(dist/*)` make `dist`, as they say.
 */
export function confinesWiderThanWritten(glob: string): boolean {
  const segments = glob.split('/').filter((segment) => segment !== '' && segment !== '.');
  const first = segments.findIndex((segment) => globSyntax.test(segment));
  return first >= 0 && segments.slice(first).some((segment) => segment !== '*' && segment !== '**');
}

/** Entries a deny glob's directory is searched for before the whole directory is hidden instead (fail closed). */
export const maxSearchedEntries = 10_000;

/**
 * The paths on disk that a read or write rule names, for mounts that hide or protect them: the
 * one path of a literal rule, the directory of `dir/**`, and for other wildcards the matching
 * entries found below the literal prefix (at most `maxSearchedEntries` looked at; past that the
 * prefix itself stands for them). Paths that do not exist are included only for literal rules.
 */
export function rulePaths(rule: Extract<Rule, { class: 'read' | 'write' }>, workspaceRoot: string): string[] {
  if (rule.glob === undefined) return [workspaceRoot];
  const prefix = literalPrefix(rule.glob, workspaceRoot);
  if (prefix.literal) return [prefix.path];
  if (isWholeTree(rule.glob)) return [prefix.path];
  const probe: Rule = { class: 'read', text: rule.text, glob: rule.glob };
  const found: string[] = [];
  let searched = 0;
  const pending = [prefix.path];
  while (pending.length > 0) {
    const directory = pending.pop()!;
    for (const name of directoryEntries(directory)) {
      if (++searched > maxSearchedEntries) return [prefix.path];
      const entry = path.join(directory, name);
      if (readRuleCovers(probe, entry, workspaceRoot)) {
        found.push(entry);
        continue;
      }
      if (lstatSync(entry, { throwIfNoEntry: false })?.isDirectory()) pending.push(entry);
    }
  }
  return found;
}
