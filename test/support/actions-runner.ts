/**
 * How the GitHub Actions runner reads a step's output as workflow commands, modelled on its
 * parser (actions/runner `ActionCommand.TryParseV2` / `TryParse` and `ActionCommandManager`):
 * lines end at `\n`, `\r\n` or a lone `\r` (.NET `StreamReader.ReadLine`); `::name ...::data`
 * counts when the line starts with it after leading white space (.NET's `TrimStart`, whose white
 * space includes U+0085 and excludes U+FEFF, unlike JavaScript's); the legacy `##[name ...]data`
 * counts wherever its first `##[` stands; names are case-insensitive; after `::stop-commands::T`
 * only `T` (in either form) is a command until it appears.
 */
const registered = [
  'stop-commands',
  'set-env',
  'set-output',
  'save-state',
  'add-mask',
  'add-path',
  'add-matcher',
  'remove-matcher',
  'debug',
  'warning',
  'error',
  'notice',
  'group',
  'endgroup',
  'echo',
];

export interface RunnerCommand {
  name: string;
  line: string;
}

function commandName(info: string): string {
  const space = info.indexOf(' ');
  return (space < 0 ? info : info.slice(0, space)).toLowerCase();
}

interface Parsed {
  name: string;
  data: string;
}

/** The characters .NET's `Char.IsWhiteSpace` accepts. */
const dotnetLeadingSpace = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/;

function parseV2(line: string, names: ReadonlySet<string>): Parsed | undefined {
  const text = line.replace(dotnetLeadingSpace, '');
  if (!text.startsWith('::')) return undefined;
  const end = text.indexOf('::', 2);
  if (end < 0) return undefined;
  const name = commandName(text.slice(2, end));
  return names.has(name) ? { name, data: text.slice(end + 2) } : undefined;
}

function parseLegacy(line: string, names: ReadonlySet<string>): Parsed | undefined {
  const start = line.indexOf('##[');
  if (start < 0) return undefined;
  const end = line.indexOf(']', start);
  if (end < 0) return undefined;
  const name = commandName(line.slice(start + 3, end));
  return names.has(name) ? { name, data: line.slice(end + 1) } : undefined;
}

/** Every workflow command the runner would act on in one stream of output, in order. */
export function runnerCommands(output: string): RunnerCommand[] {
  const names = new Set(registered);
  let stopToken: string | undefined;
  const found: RunnerCommand[] = [];
  for (const line of output.split(/\r\n|\r|\n/)) {
    const parsed = parseV2(line, names) ?? parseLegacy(line, names);
    if (parsed === undefined) continue;
    const { name } = parsed;
    if (stopToken !== undefined) {
      if (name !== stopToken) continue;
      names.delete(stopToken);
      stopToken = undefined;
    } else if (name === 'stop-commands') {
      stopToken = parsed.data.toLowerCase();
      names.add(stopToken);
    }
    found.push({ name, line });
  }
  return found;
}
