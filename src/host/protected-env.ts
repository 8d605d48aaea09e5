/**
 * Environment variables that change what a program executes: which binary runs, which code it
 * loads before its own, or which configuration (with its hooks, pagers and helpers) it obeys.
 * A narrow `process` rule would be no narrower if a step could set one of them, so a process
 * request that sets one is refused unless the rule that matches names it (`NAME=VALUE` or
 * `NAME=*` before the program) or is the unrestricted `process`. Names compare without regard
 * to case, so `Path` and `npm_config_*` are caught too.
 */
const protectedGroups: readonly { why: string; names: readonly string[]; prefixes: readonly string[] }[] = [
  { why: 'program lookup and the dynamic loader', names: ['PATH', 'GCONV_PATH'], prefixes: ['LD_', 'DYLD_'] },
  { why: 'shell start-up files and options', names: ['BASH_ENV', 'ENV', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'ZDOTDIR', 'SHELL'], prefixes: [] },
  { why: 'where configuration files are read from', names: ['HOME'], prefixes: ['XDG_CONFIG_'] },
  { why: 'git configuration, helpers and repository selection', names: [], prefixes: ['GIT_'] },
  { why: 'Node.js and npm', names: ['NODE_OPTIONS', 'NODE_PATH', 'NODE_REPL_EXTERNAL_MODULE'], prefixes: ['NPM_CONFIG_'] },
  { why: 'Python', names: [], prefixes: ['PYTHON'] },
  { why: 'Perl, Ruby, Lua and PHP', names: ['GEM_PATH', 'BUNDLE_GEMFILE', 'PHPRC', 'PHP_INI_SCAN_DIR'], prefixes: ['PERL', 'RUBY', 'LUA_INIT', 'LUA_PATH', 'LUA_CPATH'] },
  { why: 'the JVM', names: ['JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'JAVA_OPTS', 'JAVA_HOME', 'CLASSPATH'], prefixes: [] },
  { why: 'Go, Rust and make', names: ['GOFLAGS', 'GOENV', 'GOTOOLCHAIN', 'CARGO_HOME', 'MAKEFLAGS', 'MFLAGS', 'GNUMAKEFLAGS', 'MAKEFILES'], prefixes: ['RUSTC', 'RUSTDOC', 'CARGO_BUILD_'] },
  { why: 'editors, pagers and password helpers programs start', names: ['EDITOR', 'VISUAL', 'PAGER', 'MANPAGER', 'LESSOPEN', 'LESSCLOSE', 'BROWSER', 'SSH_ASKPASS', 'SUDO_ASKPASS'], prefixes: [] },
];

/**
 * Variables inside a protected prefix that only describe, never execute: git's identity and
 * dates, and Python's output and hashing switches. Anything else under the prefix is protected.
 */
const describingNames: ReadonlySet<string> = new Set([
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  'GIT_TERMINAL_PROMPT',
  'PYTHONUNBUFFERED',
  'PYTHONDONTWRITEBYTECODE',
  'PYTHONHASHSEED',
  'PYTHONIOENCODING',
  'PYTHONUTF8',
]);

const exactNames: ReadonlySet<string> = new Set(protectedGroups.flatMap((group) => group.names));
const prefixes: readonly string[] = protectedGroups.flatMap((group) => group.prefixes);

/** Whether setting this variable can change what a program executes (case-insensitive). */
export function isProtectedEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  if (exactNames.has(upper)) return true;
  if (describingNames.has(upper)) return false;
  return prefixes.some((prefix) => upper.startsWith(prefix));
}

