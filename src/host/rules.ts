import path from 'node:path';
import picomatch from 'picomatch';
import { capabilityClasses } from './capability-classes.js';
import type { CapabilityRequest, ExecutableSelection, ProcessRequest, RuleClass } from './capability.js';
import { ToolError } from './errors.js';
import { homePathProblem, expandHomePath } from './home-path.js';
import { hostPatternMatches, parseHostPattern, type HostPattern } from './network-host.js';
import type { ResolvedPath } from './workspace.js';

/**
 * A parsed policy rule: a class and an optional argument that narrows it. A network rule names
 * a host on any port (`network(example.org)`) or one port of it (`network(example.org:8080)`).
 */
export type Rule =
  | { class: 'read' | 'write'; text: string; glob?: string }
  | { class: 'process'; text: string; executable?: string; args?: readonly string[]; env?: readonly EnvAssignment[] }
  | { class: 'shell' | 'instructions' | 'outside' | 'unix_socket'; text: string }
  | { class: 'network'; text: string; host?: HostPattern }
  | { class: 'network_tool' | 'skill'; text: string; name?: string };

/**
 * `NAME=VALUE` before a rule's program: the value a process may give NAME (`value` undefined:
 * `NAME=*`, any value). See `environmentNotGranted` and `environmentConditionsHold`.
 */
export interface EnvAssignment {
  name: string;
  value: string | undefined;
}

/** Every request class is a rule class; `outside` exists only as a rule. */
const ruleClasses: ReadonlySet<string> = new Set<RuleClass>([...capabilityClasses, 'outside', 'unix_socket']);

export const maxRuleLength = 4096;

function ruleError(text: string, reason: string): ToolError {
  return new ToolError('invalid_arguments', `invalid rule ${JSON.stringify(text)}: ${reason}`);
}

/** One word of a process rule; `assigns` is set for an unquoted `NAME=` prefix (`NAME=value`, `NAME="a b"`). */
interface Word {
  text: string;
  assigns?: { name: string; value: string; quoted: boolean };
}

function parseQuoted(quoted: string, rule: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    throw ruleError(rule, `${quoted} is not a valid quoted word (quoted words use JSON string escapes)`);
  }
}

/**
 * Splits `npm run "a b"` into words. A double-quoted word is a JSON string, so every argument a
 * request can carry (spaces, quotes, control characters) can be written in a rule; so is the
 * value of an assignment, `NAME="a b"`, as a shell would write it.
 */
function splitWords(text: string, rule: string): Word[] {
  const words: Word[] = [];
  for (const match of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*")(?=\s|$)|"(?:[^"\\]|\\.)*"|\S+/gs)) {
    const word = match[0];
    const [, quotedName, quotedValue] = match;
    if (quotedName !== undefined && quotedValue !== undefined) {
      const value = parseQuoted(quotedValue, rule);
      words.push({ text: `${quotedName}=${value}`, assigns: { name: quotedName, value, quoted: true } });
    } else if (word.startsWith('"') && word.endsWith('"') && word.length >= 2) {
      words.push({ text: parseQuoted(word, rule) });
    } else if (word.includes('"')) {
      throw ruleError(rule, 'unbalanced quote');
    } else {
      const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(word);
      words.push(assignment ? { text: word, assigns: { name: assignment[1]!, value: assignment[2]!, quoted: false } } : { text: word });
    }
  }
  return words;
}

/**
 * `process(NODE_OPTIONS=--max-old-space-size=4096 GIT_DIR=* npm test)`: leading assignments,
 * as a shell writes them, then the program and its arguments. An unquoted `*` means any value.
 */
function parseProcessArgument(argument: string, rule: string, home: string | undefined): Extract<Rule, { class: 'process' }> {
  const words = splitWords(argument, rule);
  const env: EnvAssignment[] = [];
  while (words[0]?.assigns) {
    const { name, value, quoted } = words.shift()!.assigns!;
    if (env.some((assignment) => assignment.name === name)) throw ruleError(rule, `${name} is assigned twice`);
    env.push({ name, value: value === '*' && !quoted ? undefined : value });
  }
  const [written, ...args] = words.map((word) => word.text);
  if (!written) throw ruleError(rule, env.length > 0 ? 'missing executable after the environment assignments' : 'missing executable');
  const executable = expandedPath(written, rule, home, false);
  return { class: 'process', text: rule, executable, args, ...(env.length > 0 && { env }) };
}

/** A rule's path with a leading `~` expanded to `home` (undefined: the user has none, and `~` is refused). */
function expandedPath(written: string, rule: string, home: string | undefined, glob: boolean): string {
  const problem = homePathProblem(written, home, glob);
  if (problem) throw ruleError(rule, problem);
  return expandHomePath(written, home, glob);
}

/**
 * Parses one rule (`read`, `write(dist/**)`, `process(npm publish)`, `network(example.org)`).
 * A path that starts with `~` (`read(~/.config/app/**)`, `process(~/.cargo/bin/cargo)`) is the
 * running user's `home`; without one such a rule is refused.
 */
export function parseRule(text: string, home?: string): Rule {
  if (typeof text !== 'string') throw ruleError(String(text), 'a rule is a string');
  if (text.length > maxRuleLength) throw ruleError(`${text.slice(0, 40)}…`, `longer than ${maxRuleLength} characters`);
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
      if (argument?.split('/').includes('..')) throw ruleError(text, 'a glob may not contain ..');
      return { class: ruleClass, text, ...(argument !== undefined && { glob: normalizePathText(expandedPath(argument, text, home, true)) }) };
    case 'process': {
      if (argument === undefined) return { class: 'process', text };
      return parseProcessArgument(argument, text, home);
    }
    case 'network':
      if (argument === undefined) return { class: 'network', text };
      try {
        return { class: 'network', text, host: parseHostPattern(argument) };
      } catch (cause) {
        throw ruleError(text, (cause as Error).message);
      }
    case 'network_tool':
      if (argument?.slice(0, -1).includes('*')) {
        throw ruleError(text, 'only a trailing * is allowed: network_tool(SERVER.*) or network_tool(SERVER.PREFIX*)');
      }
      if (argument === '*') return { class: 'network_tool', text };
      return { class: ruleClass, text, ...(argument !== undefined && { name: argument }) };
    case 'skill':
      return { class: ruleClass, text, ...(argument !== undefined && { name: argument }) };
    default:
      if (argument !== undefined) throw ruleError(text, `"${ruleClass}" takes no argument`);
      return { class: ruleClass as 'shell' | 'instructions' | 'outside' | 'unix_socket', text };
  }
}

/** Whether a rule grants its whole class (`process`, not `process(npm)`). */
export function isUnrestricted(rule: Rule): boolean {
  switch (rule.class) {
    case 'read':
    case 'write':
      return rule.glob === undefined;
    case 'process':
      return rule.executable === undefined;
    case 'network':
      return rule.host === undefined;
    case 'network_tool':
    case 'skill':
      return rule.name === undefined;
    default:
      return true;
  }
}

/**
 * The one Unicode form rules and paths are compared in: NFC. The same name can be spelled
 * composed (`café`, U+00E9) or decomposed (`cafe` + U+0301); file systems may keep either, and
 * some treat them as one name. Comparing both sides in NFC means a rule covers every spelling
 * of the names it writes: a deny for `café/**` also keeps back `cafe\u0301/x`, and an allow for
 * one spelling allows the other (a stricter deny never loses to a spelling).
 */
export function normalizePathText(text: string): string {
  return text.normalize('NFC');
}

/**
 * Subjects of recently matched paths, per workspace root: a request is matched against every
 * rule, and each asks for the same one or two paths, so the relative path is computed once.
 */
const recentSubjects = new Map<string, Map<string, string>>();
const recentSubjectsLimit = 1024;

/** A path in the form rules are written against: relative inside the workspace, absolute elsewhere. */
export function ruleSubject(absolute: string, workspaceRoot: string): string {
  let subjects = recentSubjects.get(workspaceRoot);
  if (!subjects) recentSubjects.set(workspaceRoot, (subjects = new Map()));
  let subject = subjects.get(absolute);
  if (subject === undefined) {
    if (subjects.size >= recentSubjectsLimit) subjects.clear();
    subject = subjectOf(absolute, workspaceRoot);
    subjects.set(absolute, subject);
  }
  return subject;
}

function subjectOf(absolute: string, workspaceRoot: string): string {
  const relative = path.relative(workspaceRoot, absolute);
  if (relative === '') return '.';
  if (relative.startsWith('..') || path.isAbsolute(relative)) return normalizePathText(absolute);
  return normalizePathText(relative.split(path.sep).join('/'));
}

const globCache = new Map<string, (subject: string) => boolean>();
function globMatcher(glob: string): (subject: string) => boolean {
  let matcher = globCache.get(glob);
  if (!matcher) {
    matcher = picomatch(normalizePathText(glob), { dot: true });
    globCache.set(glob, matcher);
  }
  return matcher;
}

/** A name no real entry can have, to ask whether a glob covers the inside of a directory. */
const treeProbe = '\u0000tree';

/**
 * Whether a glob covers a path. A directory tree is covered only when the glob also covers
 * entries inside it at two depths (`src/**` covers the tree `src`; `src/*` does not). The
 * workspace root has no name a glob could match, so it is covered through what it contains.
 */
function pathMatches(glob: string | undefined, subject: string, tree: boolean): boolean {
  if (glob === undefined) return true;
  const matcher = globMatcher(glob);
  const isRoot = subject === '.';
  if (!isRoot && !matcher(subject)) return false;
  if (!tree && !isRoot) return true;
  const inside = isRoot ? treeProbe : `${subject}/${treeProbe}`;
  return matcher(inside) && matcher(`${inside}/${treeProbe}`);
}

/**
 * Whether a `read` rule covers one path met inside a directory tree that was authorized as a
 * whole (a listing or a search), so such walks can skip what a deny or ask rule keeps back.
 */
export function readRuleCovers(rule: Rule, absolute: string, workspaceRoot: string): boolean {
  return readRuleCoversSubject(rule, ruleSubject(absolute, workspaceRoot));
}

/** `readRuleCovers` for a path already in its rule form (`entrySubject`). */
export function readRuleCoversSubject(rule: Rule, subject: string): boolean {
  return rule.class === 'read' && pathMatches(rule.glob, subject, false);
}

/**
 * The rule form of the entry `name` of a directory whose rule form is `directorySubject`,
 * without resolving the entry's path again: NFC normalizes each side of a `/` alone, so the
 * directory's form, a slash and the name's form make the entry's. Undefined for an entry of
 * the workspace root (`.`), whose form `ruleSubject` decides.
 */
export function entrySubject(directorySubject: string, name: string): string | undefined {
  return directorySubject === '.' ? undefined : `${directorySubject}/${normalizePathText(name)}`;
}

/** A glob segment picomatch can only match as the same text: no glob syntax, no `.` or `..`. */
const literalSegment = /^\.?[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/**
 * Whether a `read` rule could cover some entry below the directory `directory`, which lies
 * inside `workspaceRoot`: false only when the glob's leading literal segments already differ
 * from the directory's own, or the glob is a literal path no longer than the directory's. Every
 * path below it extends the directory's subject (`dir/...`), and a literal segment matches only
 * the same text, so such a rule matches none of them. A walk can then skip the rule for every
 * entry of the directory.
 */
export function readRuleMayCoverBelow(rule: Rule, directory: string, workspaceRoot: string): boolean {
  if (rule.class !== 'read') return false;
  if (rule.glob === undefined) return true;
  const subject = ruleSubject(directory, workspaceRoot);
  if (subject === '.' || path.isAbsolute(subject)) return true;
  const within = subject.split('/');
  const segments = normalizePathText(rule.glob).split('/');
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    if (!literalSegment.test(segment)) return true;
    if (index >= within.length) return true;
    if (segment !== within[index]) return false;
  }
  // A literal path of no more segments than the directory's: it names the directory or an ancestor.
  return false;
}

export type PathView = 'written' | 'resolved';

function pathSubject(resolved: ResolvedPath, root: string, view: PathView): string {
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
      return pathMatches(rule.glob, pathSubject(request.path, workspaceRoot, view), request.target === 'tree');
    case 'write':
      return request.class === 'write' && pathMatches(rule.glob, pathSubject(request.path, workspaceRoot, view), false);
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
      return request.class === 'network' && (rule.host === undefined || hostPatternMatches(rule.host, request.hostname, request.port));
    case 'network_tool':
      return request.class === 'network_tool' && (rule.name === undefined || networkToolNameMatches(rule.name, request.tool));
    case 'skill':
      return request.class === 'skill' && (rule.name === undefined || rule.name === request.name);
    case 'instructions':
      return request.class === 'instructions';
    case 'outside':
      return 'path' in request && request.path.scope !== 'workspace';
    case 'unix_socket':
      // No request asks for it: the confinement plan reads it (`unixSocketConfinement`).
      return false;
  }
}

/**
 * Whether a `network_tool` rule's name covers a tool: exactly, or by prefix when it ends in `*`
 * (`ev.*` is every tool of server `ev`, `ev.get-*` a family of them).
 */
export function networkToolNameMatches(pattern: string, tool: string): boolean {
  return pattern.endsWith('*') ? tool.startsWith(pattern.slice(0, -1)) : pattern === tool;
}

/** What grants a process a variable that the rule matching it does not name. */
export interface VariableGrants {
  grants(name: string, value: string, request: ProcessRequest): boolean;
}

/**
 * The variables a process request sets that an `allow` or `ask` rule does not let it set: one
 * the rule assigns with another value, or one the rule does not assign that `grants` does not
 * grant (the policy's: harmless names, `policy.env`, the workflow's secrets and host variables,
 * the rules of the programs a variable changes). The unrestricted `process` and rules of other
 * classes grant everything; `shell` grants everything too, since a script can set any variable
 * itself.
 */
export function environmentNotGranted(rule: Rule, request: CapabilityRequest, grants: VariableGrants): string[] {
  if (request.class !== 'process' || rule.class !== 'process' || rule.executable === undefined) return [];
  const assigned = new Map((rule.env ?? []).map((assignment) => [assignment.name, assignment.value]));
  return Object.entries(request.env)
    .filter(([name, value]) => {
      if (!assigned.has(name)) return !grants.grants(name, value, request);
      const allowed = assigned.get(name);
      return allowed !== undefined && allowed !== value;
    })
    .map(([name]) => name);
}

/**
 * Whether a `deny` rule's assignments all hold for a request: in a deny rule they narrow it, so
 * `deny: process(GIT_SSH_COMMAND=* git)` refuses git only when it sets GIT_SSH_COMMAND.
 */
export function environmentConditionsHold(rule: Rule, request: CapabilityRequest): boolean {
  if (rule.class !== 'process' || !rule.env) return true;
  if (request.class !== 'process' && request.class !== 'shell') return false;
  return rule.env.every(({ name, value }) => Object.hasOwn(request.env, name) && (value === undefined || request.env[name] === value));
}

/**
 * `process(npm)` names a program found on PATH; `process(./bin/x)` or `process(/usr/bin/x)` names
 * one file (relative to the workspace root). A bare name never matches a program given by path,
 * so `process(rm)` cannot be met by a workspace script called `rm`, nor one a PATH search found
 * where steps write (a PATH entry inside the workspace, such as the `node_modules/.bin` that
 * `npm run` puts first): that program is matched only by a rule naming its path.
 */
function executableMatches(ruleExecutable: string, executable: ExecutableSelection, workspaceRoot: string): boolean {
  if (!ruleExecutable.includes('/')) {
    return executable.lookup === 'path_search' && executable.writable !== true && executable.requested === ruleExecutable;
  }
  return path.resolve(workspaceRoot, ruleExecutable) === executable.resolved;
}
