import path from 'node:path';
import picomatch from 'picomatch';
import type { CapabilityRequest, RuleClass } from './capability.js';
import { ToolError } from './errors.js';
import { normalizeHost } from './network-host.js';
import type { ResolvedPath } from './workspace.js';

/** A parsed policy rule: a class and an optional argument that narrows it. */
export type Rule =
  | { class: 'read' | 'write'; text: string; glob?: string }
  | { class: 'process'; text: string; executable?: string; args?: readonly string[] }
  | { class: 'shell' | 'instructions' | 'outside'; text: string }
  | { class: 'network'; text: string; host?: string }
  | { class: 'network_tool' | 'skill'; text: string; name?: string };

const ruleClasses: ReadonlySet<string> = new Set<RuleClass>([
  'read',
  'write',
  'process',
  'shell',
  'network',
  'network_tool',
  'skill',
  'instructions',
  'outside',
]);

export const maxRuleLength = 4096;

function ruleError(text: string, reason: string): ToolError {
  return new ToolError('invalid_arguments', `invalid rule ${JSON.stringify(text)}: ${reason}`);
}

/** Splits `npm run "a b"` into words; double quotes group, backslash escapes inside quotes. */
function splitWords(text: string, rule: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const match of text.matchAll(pattern)) {
    if (match[1] !== undefined) words.push(match[1].replace(/\\(.)/g, '$1'));
    else if (match[2]!.includes('"')) throw ruleError(rule, 'unbalanced quote');
    else words.push(match[2]!);
  }
  return words;
}

/** Parses one rule (`read`, `write(dist/**)`, `process(npm publish)`, `network(example.org)`). */
export function parseRule(text: string): Rule {
  if (typeof text !== 'string') throw ruleError(String(text), 'a rule is a string');
  if (text.length > maxRuleLength) throw ruleError(text.slice(0, 40) + '…', `longer than ${maxRuleLength} characters`);
  const match = /^([a-z_]+)(?:\((.*)\))?$/s.exec(text.trim());
  if (!match) throw ruleError(text, 'expected CLASS or CLASS(ARGUMENT)');
  const ruleClass = match[1]!;
  const argument = match[2]?.trim();
  if (!ruleClasses.has(ruleClass)) {
    throw ruleError(text, `unknown class "${ruleClass}" (known: ${[...ruleClasses].join(', ')})`);
  }
  if (argument !== undefined && argument.length === 0) throw ruleError(text, 'empty parentheses; omit them to match everything');
  if (argument?.includes('\0')) throw ruleError(text, 'NUL byte');
  switch (ruleClass) {
    case 'read':
    case 'write':
      if (argument !== undefined && argument.split('/').includes('..')) throw ruleError(text, 'a glob may not contain ..');
      return { class: ruleClass, text, ...(argument !== undefined && { glob: argument }) };
    case 'process': {
      if (argument === undefined) return { class: 'process', text };
      const [executable, ...args] = splitWords(argument, text);
      if (!executable) throw ruleError(text, 'missing executable');
      return { class: 'process', text, executable, args };
    }
    case 'network':
      if (argument === undefined) return { class: 'network', text };
      try {
        return { class: 'network', text, host: normalizeHost(argument) };
      } catch (cause) {
        throw ruleError(text, (cause as Error).message);
      }
    case 'network_tool':
    case 'skill':
      return { class: ruleClass, text, ...(argument !== undefined && { name: argument }) };
    default:
      if (argument !== undefined) throw ruleError(text, `"${ruleClass}" takes no argument`);
      return { class: ruleClass as 'shell' | 'instructions' | 'outside', text };
  }
}

/** A path in the form rules are written against: relative inside the workspace, absolute elsewhere. */
function ruleSubject(absolute: string, workspaceRoot: string): string {
  const relative = path.relative(workspaceRoot, absolute);
  if (relative === '') return '.';
  if (relative.startsWith('..') || path.isAbsolute(relative)) return absolute;
  return relative.split(path.sep).join('/');
}

const globCache = new Map<string, (subject: string) => boolean>();
function globMatcher(glob: string): (subject: string) => boolean {
  let matcher = globCache.get(glob);
  if (!matcher) {
    matcher = picomatch(glob, { dot: true });
    globCache.set(glob, matcher);
  }
  return matcher;
}

/** A name no real entry can have, to ask whether a glob covers the inside of a directory. */
const treeProbe = '\u0000tree';

function pathMatches(glob: string | undefined, subject: string, tree: boolean): boolean {
  if (glob === undefined) return true;
  const matcher = globMatcher(glob);
  if (!matcher(subject)) return false;
  return !tree || matcher(subject === '.' ? treeProbe : `${subject}/${treeProbe}`);
}

export type PathView = 'written' | 'resolved';

function pathSubjects(resolved: ResolvedPath, root: string, view: PathView): string {
  return ruleSubject(view === 'written' ? resolved.lexical : resolved.canonical, root);
}

/**
 * Whether a rule covers a request. Paths are matched against one view: the path as written
 * (lexical) or as resolved (canonical); the policy decides which view each rule kind needs.
 */
export function ruleMatches(rule: Rule, request: CapabilityRequest, workspaceRoot: string, view: PathView = 'resolved'): boolean {
  switch (rule.class) {
    case 'read':
      if (request.class !== 'read') return false;
      return pathMatches(rule.glob, pathSubjects(request.path, workspaceRoot, view), request.target === 'tree');
    case 'write':
      return request.class === 'write' && pathMatches(rule.glob, pathSubjects(request.path, workspaceRoot, view), false);
    case 'process': {
      if (request.class !== 'process') return false;
      if (rule.executable === undefined) return true;
      if (!executableMatches(rule.executable, request.executable, workspaceRoot)) return false;
      const args = rule.args ?? [];
      return args.every((arg, index) => request.argv[index] === arg);
    }
    case 'shell':
      return request.class === 'shell';
    case 'network':
      return request.class === 'network' && (rule.host === undefined || rule.host === request.host);
    case 'network_tool':
      return request.class === 'network_tool' && (rule.name === undefined || rule.name === request.tool);
    case 'skill':
      return request.class === 'skill' && (rule.name === undefined || rule.name === request.name);
    case 'instructions':
      return request.class === 'instructions';
    case 'outside':
      return 'path' in request && request.path.scope !== 'workspace';
  }
}

/**
 * `process(npm)` names a program found on PATH; `process(./bin/x)` or `process(/usr/bin/x)` names
 * one file. A bare name never matches a program given by path, so `process(rm)` cannot be met
 * by a workspace script called `rm`.
 */
function executableMatches(
  ruleExecutable: string,
  executable: { requested: string; resolved: string; lookup: 'exact' | 'path_search' },
  workspaceRoot: string,
): boolean {
  if (!ruleExecutable.includes('/')) return executable.lookup === 'path_search' && executable.requested === ruleExecutable;
  return path.resolve(workspaceRoot, ruleExecutable) === executable.resolved;
}
