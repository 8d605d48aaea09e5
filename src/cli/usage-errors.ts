import { closestNames } from '../workflow/suggest.js';

/** What a usage error needs to know of the command it was raised by. */
export interface CommandShape {
  /** The command as typed, `run` or `hooks test`. */
  name: string;
  flags: Readonly<Record<string, { char?: string | undefined }>>;
}

/** The fields oclif's parser errors carry (they are not exported as classes). */
interface ParserErrorFields {
  parse?: unknown;
  flags?: unknown;
  args?: unknown;
}

const ansi = /\u001B\[[0-9;]*m/g;
const seeMoreHelp = /\n?See more help with --help\s*$/;

/**
 * One line for an error oclif's parser raised (an unknown flag, a missing argument, a flag value
 * it could not parse), or undefined for any other error. oclif prints such errors with the whole
 * help after them; one line that says what is wrong, with a did-you-mean, reads better.
 */
export function describeUsageError(error: unknown, command: CommandShape): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const fields = error as Error & ParserErrorFields;
  const see = `see rho help ${command.name}`;
  if (fields.parse !== undefined && Array.isArray(fields.flags)) {
    const described = (fields.flags as unknown[]).map((flag) => describeUnknownFlag(String(flag), command));
    return `${described.join('; ')} (${see})`;
  }
  if (fields.parse !== undefined && Array.isArray(fields.args)) {
    const args = fields.args as unknown[];
    if (args.every((arg) => typeof arg === 'string')) {
      return `unexpected argument${args.length === 1 ? '' : 's'} ${args.map((arg) => `"${arg}"`).join(', ')} (${see})`;
    }
    const names = args.map((arg) => (arg as { name?: string }).name?.toUpperCase() ?? 'an argument');
    return `rho ${command.name} needs ${names.join(' and ')} (${see})`;
  }
  const parsing = /^Parsing --(\S+)\s*\n\t([\s\S]*)$/.exec(error.message);
  if (parsing) return `--${parsing[1]}: ${oneLine(parsing[2]!)} (${see})`;
  if (fields.parse !== undefined) return `${oneLine(error.message)} (${see})`;
  return undefined;
}

function oneLine(message: string): string {
  return message
    .replace(ansi, '')
    .replace(seeMoreHelp, '')
    .replace(/^The following errors? occurred:\s*/, '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join('; ');
}

/** `unknown flag --allwo; did you mean --allow?` */
function describeUnknownFlag(typed: string, command: CommandShape): string {
  const flag = typed.split('=')[0]!;
  const known = Object.entries(command.flags).flatMap(([name, definition]) => [`--${name}`, ...(definition.char ? [`-${definition.char}`] : [])]);
  const long = flag.startsWith('--');
  const candidates = long ? known.filter((name) => name.startsWith('--')) : known;
  const suggestions = long
    ? closestNames(
        flag.slice(2),
        candidates.map((name) => name.slice(2)),
      ).map((name) => `--${name}`)
    : [];
  return `unknown flag ${flag}${suggestions.length > 0 ? `; did you mean ${suggestions.join(' or ')}?` : ''}`;
}
