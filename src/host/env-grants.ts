import { describingNames, isProtectedEnvName, patternCoversProtected } from './protected-env.js';

/**
 * Variables a step may give any program whatever their value: they change how programs report
 * (colours, width, locale, time zone, log levels, fixed dates and hashes), never which program
 * runs, what code it loads or what configuration it reads.
 */
const harmlessNames: ReadonlySet<string> = new Set([
  'CI',
  'NODE_ENV',
  'FORCE_COLOR',
  'NO_COLOR',
  'CLICOLOR',
  'CLICOLOR_FORCE',
  'COLUMNS',
  'LINES',
  'TZ',
  'LANG',
  'LANGUAGE',
  'SOURCE_DATE_EPOCH',
  'DO_NOT_TRACK',
  'RUST_BACKTRACE',
  'RUST_LOG',
  'CARGO_TERM_COLOR',
  // git's identity and dates, Python's output and hashing switches.
  ...describingNames,
]);

/** The locale categories (`LC_ALL`, `LC_CTYPE`, …). */
const harmlessPrefix = /^LC_[A-Z]+$/;

/** Whether a step may set this variable for any program without a grant (exact names, case as written). */
export function isHarmlessEnvName(name: string): boolean {
  return harmlessNames.has(name) || harmlessPrefix.test(name);
}

/** A `policy.env` entry: a variable name, or a prefix and `*` (`APP_*`). */
export const envGrantPattern = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** Why a `policy.env` entry cannot be granted that way, or undefined when it can. */
export function envGrantProblem(pattern: string): string | undefined {
  if (!envGrantPattern.test(pattern)) return `"${pattern}" is not a variable name or a NAME_* prefix`;
  if (patternCoversProtected(pattern)) {
    return `${pattern} ${pattern.endsWith('*') ? 'covers variables that change' : 'changes'} what a program runs; grant it in the rule of the program that needs it (process(${pattern.replace(/\*$/, 'NAME')}=VALUE program))`;
  }
  return undefined;
}

/**
 * The variables a process request may set without the rule that matches it naming them: the
 * harmless ones; those `policy.env` grants (names or `PREFIX*`, which never cover a variable
 * known to change what runs); and the workflow's `secrets:` and `host_env:` names, which the
 * file chose to pass, unless one is known to change what runs. Everything else only a process
 * rule grants, by naming it (`process(NAME=VALUE program)`), or the unrestricted `process`.
 */
export class EnvGrants {
  private readonly names: ReadonlySet<string>;
  private readonly prefixes: readonly string[];
  private readonly declared: ReadonlySet<string>;

  constructor(policyEnv: readonly string[] = [], declared: readonly string[] = []) {
    this.names = new Set(policyEnv.filter((pattern) => !pattern.endsWith('*')));
    this.prefixes = policyEnv.filter((pattern) => pattern.endsWith('*')).map((pattern) => pattern.slice(0, -1));
    this.declared = new Set(declared);
  }

  grants(name: string): boolean {
    if (isHarmlessEnvName(name)) return true;
    if (isProtectedEnvName(name)) return false;
    return this.names.has(name) || this.prefixes.some((prefix) => name.startsWith(prefix)) || this.declared.has(name);
  }
}
