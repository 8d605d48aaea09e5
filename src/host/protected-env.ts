/**
 * Environment variables known to change what a program executes: which binary runs, which code
 * it loads before its own, or which configuration (with its hooks, pagers and helpers) it
 * obeys. No list of them can be complete, so this one is not the boundary (a step may set only
 * the variables `EnvGrants` grants); it says which ones only a process rule may grant
 * (`NAME=VALUE` or `NAME=*` before the program), never `policy.env`, `secrets:` or `host_env:`,
 * and which ones an approval prompt marks. Names compare without regard to case, so `Path` and
 * `npm_config_*` are caught too.
 *
 * A group with `programs` changes what those programs run and nothing else does: another
 * program may carry such a variable when a rule of one of them grants it (`ProgramEnvGrants`),
 * since what it reaches is the program that rule already lets have it. A group without
 * `programs` changes every program (the loader, the shell, every script of a language).
 */
interface ProtectedGroup {
  why: string;
  names: readonly string[];
  prefixes: readonly string[];
  programs?: readonly string[];
}

const protectedGroups: readonly ProtectedGroup[] = [
  { why: 'program lookup and the dynamic loader', names: ['PATH', 'GCONV_PATH'], prefixes: ['LD_', 'DYLD_'] },
  { why: 'shell start-up files and options', names: ['BASH_ENV', 'ENV', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'ZDOTDIR', 'SHELL'], prefixes: [] },
  { why: 'where configuration files are read from', names: ['HOME'], prefixes: ['XDG_CONFIG_'] },
  { why: 'git configuration, helpers and repository selection', names: [], prefixes: ['GIT_'], programs: ['git'] },
  { why: 'Node.js', names: ['NODE_OPTIONS', 'NODE_PATH', 'NODE_REPL_EXTERNAL_MODULE'], prefixes: [] },
  { why: 'npm configuration', names: [], prefixes: ['NPM_CONFIG_'], programs: ['npm', 'npx', 'pnpm', 'pnpx', 'yarn', 'yarnpkg'] },
  { why: 'yarn configuration', names: [], prefixes: ['YARN_'], programs: ['yarn', 'yarnpkg'] },
  { why: 'pip configuration', names: [], prefixes: ['PIP_'], programs: ['pip', 'pip3'] },
  { why: 'Python', names: [], prefixes: ['PYTHON'] },
  { why: 'Perl, Ruby, Lua and PHP', names: ['GEM_PATH', 'BUNDLE_GEMFILE', 'PHPRC', 'PHP_INI_SCAN_DIR'], prefixes: ['PERL', 'RUBY', 'LUA_INIT', 'LUA_PATH', 'LUA_CPATH'] },
  { why: 'the JVM', names: ['JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'JAVA_OPTS', 'JAVA_HOME', 'CLASSPATH'], prefixes: [] },
  { why: 'Go', names: ['GOFLAGS', 'GOENV', 'GOTOOLCHAIN'], prefixes: [], programs: ['go'] },
  {
    why: 'Rust',
    names: ['CARGO_HOME', 'RUSTFLAGS', 'CARGO_ENCODED_RUSTFLAGS'],
    prefixes: ['RUSTC', 'RUSTDOC', 'CARGO_BUILD_', 'CARGO_TARGET_'],
    programs: ['cargo', 'rustc', 'rustdoc', 'rustup'],
  },
  { why: 'make', names: ['MAKEFLAGS', 'MFLAGS', 'GNUMAKEFLAGS', 'MAKEFILES'], prefixes: [], programs: ['make', 'gmake'] },
  {
    why: 'editors, pagers and password helpers programs start',
    names: ['EDITOR', 'VISUAL', 'PAGER', 'MANPAGER', 'LESSOPEN', 'LESSCLOSE', 'BROWSER', 'SSH_ASKPASS', 'SUDO_ASKPASS'],
    prefixes: [],
  },
  { why: 'compilers and their flags, which build tools run', names: ['CC', 'CXX', 'CPP', 'LD', 'AR', 'AS', 'CFLAGS', 'CXXFLAGS', 'CPPFLAGS', 'LDFLAGS'], prefixes: [] },
  { why: 'tar options', names: ['TAR_OPTIONS'], prefixes: [], programs: ['tar'] },
  { why: 'the remote shell rsync runs', names: ['RSYNC_RSH'], prefixes: [], programs: ['rsync'] },
  { why: 'the remote shell cvs runs', names: ['CVS_RSH'], prefixes: [], programs: ['cvs'] },
  {
    why: 'helpers, plugins and configuration other programs load',
    names: [
      'OPENSSL_CONF',
      'OPENSSL_ENGINES',
      'DOTNET_STARTUP_HOOKS',
      'DOTNET_ADDITIONAL_DEPS',
      'TERMINFO',
      'TERMINFO_DIRS',
      'LOCPATH',
      'NLSPATH',
      'GLIBC_TUNABLES',
      'IFS',
      'HOSTALIASES',
    ],
    prefixes: ['CORECLR_'],
  },
];

/**
 * Variables inside a protected prefix that only describe, never execute: git's identity and
 * dates, and Python's output and hashing switches. Anything else under the prefix is protected.
 */
export const describingNames: ReadonlySet<string> = new Set([
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

/**
 * The programs a protected variable changes, when that is known to be a few (`npm_config_*`:
 * npm and the tools that read its configuration); undefined when it changes any program, or
 * when the name is not protected.
 */
export function programsAffectedBy(name: string): readonly string[] | undefined {
  if (!isProtectedEnvName(name)) return undefined;
  const upper = name.toUpperCase();
  const group = protectedGroups.find((candidate) => candidate.names.includes(upper) || candidate.prefixes.some((prefix) => upper.startsWith(prefix)));
  return group?.programs;
}

/**
 * Whether an `env` grant pattern (`NAME`, or `PREFIX*`) covers a variable known to change what
 * runs: such a grant belongs in the process rule of the program that needs it.
 */
export function patternCoversProtected(pattern: string): boolean {
  const upper = pattern.toUpperCase();
  if (!upper.endsWith('*')) return isProtectedEnvName(upper);
  const prefix = upper.slice(0, -1);
  return [...exactNames].some((name) => name.startsWith(prefix)) || prefixes.some((known) => known.startsWith(prefix) || prefix.startsWith(known));
}
