/**
 * Shell completion scripts for rho. What never changes between projects (commands, flags, their
 * values, tool names) is written into the script when it is generated, so Tab on those never
 * starts rho. What a project's workflow file says (its task names and aliases, the NAME=VALUE
 * pairs `--matrix` takes) is asked of `rho list --names` and `rho matrix --pairs` as it is
 * completed, for the file typed or the one rho finds.
 */

export const completionShells = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof completionShells)[number];

export interface CompletionFlag {
  name: string;
  char?: string | undefined;
  summary?: string | undefined;
  /** Whether the flag takes a value (`--allow RULE`) rather than standing alone (`--yes`). */
  takesValue: boolean;
  /** The values it accepts, when it names them (`--output auto|fancy|plain|json`). */
  options?: readonly string[] | undefined;
}

export interface CompletionCommand {
  /** oclif id: `run`, `hooks:test`. */
  id: string;
  summary?: string | undefined;
  flags: readonly CompletionFlag[];
  /** Words the first argument can be (`schema workflow|events`, a tool name for `invoke`); files otherwise. */
  argumentValues?: readonly string[] | undefined;
  /** Its arguments are `[FILE] TASK` (`run`, `plan`, `matrix`): the task is completed from the file, and `--matrix` from its cells. */
  takesTask?: boolean;
}

export function completionScript(shell: CompletionShell, commands: readonly CompletionCommand[]): string {
  const sorted = [...commands].sort((a, b) => a.id.localeCompare(b.id));
  switch (shell) {
    case 'bash':
      return bashScript(sorted);
    case 'zsh':
      return `#compdef rho\n# rho completion for zsh: the bash completion through bashcompinit.\nautoload -U +X bashcompinit && bashcompinit\n${bashScript(sorted, false)}`;
    case 'fish':
      return fishScript(sorted);
  }
}

/** Single-quoted for sh: safe for any text. */
function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The command words and topics reachable right after `topic` (`[]` for the top level). */
function nextWords(commands: readonly CompletionCommand[], topic: readonly string[]): string[] {
  const words = commands
    .map((command) => command.id.split(':'))
    .filter((id) => id.length > topic.length && topic.every((word, index) => id[index] === word))
    .map((id) => id[topic.length]!);
  return [...new Set(words)];
}

function topicsOf(commands: readonly CompletionCommand[]): string[][] {
  const topics = new Map<string, string[]>();
  for (const command of commands) {
    const id = command.id.split(':');
    for (let depth = 1; depth < id.length; depth++) topics.set(id.slice(0, depth).join(' '), id.slice(0, depth));
  }
  return [...topics.values()];
}

function bashScript(commands: readonly CompletionCommand[], header = true): string {
  const cases: string[] = [];
  // Longest ids first, so `hooks test` is matched before the topic `hooks`.
  const byDepth = [...commands].sort((a, b) => b.id.split(':').length - a.id.split(':').length);
  for (const command of byDepth) {
    const words = command.id.split(':').join(' ');
    const flagWords = command.flags.flatMap((flag) => [`--${flag.name}`, ...(flag.char ? [`-${flag.char}`] : [])]);
    const valueFlags = command.flags.filter((flag) => flag.takesValue);
    const optionCases = valueFlags
      .filter((flag) => flag.options && flag.options.length > 0)
      .map(
        (flag) =>
          `        ${[`--${flag.name}`, ...(flag.char ? [`-${flag.char}`] : [])].join('|')}) COMPREPLY=($(compgen -W ${quote(flag.options!.join(' '))} -- "$cur")); return ;;`,
      );
    const valueFlagWords = valueFlags.flatMap((flag) => [`--${flag.name}`, ...(flag.char ? [`-${flag.char}`] : [])]);
    const first = command.id.split(':').length + 1;
    const fromFile = (helper: string) => `COMPREPLY=($(compgen -W "$(${helper} ${first} ${quote(valueFlagWords.join(' '))})" -- "$cur")); return`;
    const matrixCase = command.takesTask && valueFlags.some((flag) => flag.name === 'matrix') ? [`        --matrix) ${fromFile('_rho_matrix_pairs')} ;;`] : [];
    const fileFlags = valueFlags
      .filter((flag) => (!flag.options || flag.options.length === 0) && !(matrixCase.length > 0 && flag.name === 'matrix'))
      .flatMap((flag) => [`--${flag.name}`, ...(flag.char ? [`-${flag.char}`] : [])]);
    cases.push(
      [
        `    ${quote(` ${words} `)}*)`,
        '      case "$prev" in',
        ...optionCases,
        ...matrixCase,
        ...(fileFlags.length > 0 ? [`        ${fileFlags.join('|')}) return ;;`] : []),
        '      esac',
        `      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W ${quote(flagWords.join(' '))} -- "$cur")); return; fi`,
        ...(command.argumentValues && command.argumentValues.length > 0
          ? [`      COMPREPLY=($(compgen -W ${quote(command.argumentValues.join(' '))} -- "$cur")); return ;;`]
          : command.takesTask
            ? [`      ${fromFile('_rho_tasks')} ;;`]
            : ['      return ;;']),
      ].join('\n'),
    );
  }
  for (const topic of topicsOf(commands).sort((a, b) => b.length - a.length)) {
    cases.push(`    ${quote(` ${topic.join(' ')} `)}*) COMPREPLY=($(compgen -W ${quote(nextWords(commands, topic).join(' '))} -- "$cur")); return ;;`);
  }
  cases.push(`    *) COMPREPLY=($(compgen -W ${quote(nextWords(commands, []).join(' '))} -- "$cur")); return ;;`);
  return [
    ...(header ? ['# rho completion for bash. Install: rho autocomplete bash > ~/.local/share/bash-completion/completions/rho'] : []),
    ...bashFileHelpers,
    '_rho() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
    '  local typed=" ${COMP_WORDS[*]:1:COMP_CWORD-1} "',
    '  COMPREPLY=()',
    '  case "$typed" in',
    ...cases,
    '  esac',
    '}',
    // With nothing proposed (a file argument, a flag's file value), the shell completes file names.
    'complete -o default -F _rho rho',
    '',
  ].join('\n');
}

/**
 * Bash functions that read the workflow file. Each takes the index of the command's first
 * argument and the flags that take a value (whose values are not arguments).
 */
const bashFileHelpers = [
  '# The arguments typed before the cursor: no flag, no flag value, nothing after --.',
  '_rho_arguments() {',
  '  local skip=0 i word',
  '  for ((i = $1; i < COMP_CWORD; i++)); do',
  '    word="${COMP_WORDS[i]}"',
  '    if ((skip)); then skip=0; continue; fi',
  '    case "$word" in',
  '      --) return ;;',
  '      --*=*) ;;',
  '      -*) [[ " $2 " == *" $word "* ]] && skip=1 ;;',
  `      *) printf '%s\\n' "$word" ;;`,
  '    esac',
  '  done',
  '}',
  '# A first argument ending in .yml or .yaml is the file; without one rho finds rho.yml.',
  '_rho_is_file() { [[ "$1" == *.yml || "$1" == *.yaml ]]; }',
  '# Task names and aliases, while the task is still to be typed.',
  '_rho_tasks() {',
  '  local words=($(_rho_arguments "$1" "$2"))',
  '  if ((${#words[@]} == 0)); then rho list --names 2>/dev/null',
  '  elif ((${#words[@]} == 1)) && _rho_is_file "${words[0]}"; then rho list --names "${words[0]}" 2>/dev/null',
  '  fi',
  '}',
  '# The NAME=VALUE pairs --matrix takes for the file and task typed.',
  '_rho_matrix_pairs() {',
  '  local words=($(_rho_arguments "$1" "$2"))',
  '  if _rho_is_file "${words[0]}"; then rho matrix --pairs "${words[@]:0:2}" 2>/dev/null; else rho matrix --pairs "${words[@]:0:1}" 2>/dev/null; fi',
  '}',
];

function fishScript(commands: readonly CompletionCommand[]): string {
  const lines = ['# rho completion for fish. Install: rho autocomplete fish > ~/.config/fish/completions/rho.fish', 'complete -c rho -e'];
  const topLevel = nextWords(commands, []);
  const summaryOf = (words: readonly string[]) => commands.find((command) => command.id === words.join(':'))?.summary;
  for (const word of topLevel) {
    const summary = summaryOf([word]);
    lines.push(`complete -c rho -f -n __fish_use_subcommand -a ${quote(word)}${summary ? ` -d ${quote(summary)}` : ''}`);
  }
  for (const topic of topicsOf(commands)) {
    const next = nextWords(commands, topic);
    const inTopic = `__fish_seen_subcommand_from ${topic.join(' ')}; and not __fish_seen_subcommand_from ${next.join(' ')}`;
    for (const word of next) {
      const summary = summaryOf([...topic, word]);
      lines.push(`complete -c rho -f -n ${quote(inTopic)} -a ${quote(word)}${summary ? ` -d ${quote(summary)}` : ''}`);
    }
  }
  for (const command of commands) {
    const words = command.id.split(':');
    const condition = words.map((word) => `__fish_seen_subcommand_from ${word}`).join('; and ');
    for (const flag of command.flags) {
      const parts = [`complete -c rho -n ${quote(condition)} -l ${quote(flag.name)}`];
      if (flag.char) parts.push(`-s ${quote(flag.char)}`);
      if (flag.options && flag.options.length > 0) parts.push(`-x -a ${quote(flag.options.join(' '))}`);
      else if (flag.takesValue) parts.push('-r');
      if (flag.summary) parts.push(`-d ${quote(flag.summary)}`);
      lines.push(parts.join(' '));
    }
    if (command.argumentValues && command.argumentValues.length > 0) {
      lines.push(`complete -c rho -f -n ${quote(condition)} -a ${quote(command.argumentValues.join(' '))}`);
    }
    // The tasks of the file rho finds from the current directory.
    if (command.takesTask) lines.push(`complete -c rho -n ${quote(condition)} -a '(rho list --names 2>/dev/null)'`);
  }
  return `${lines.join('\n')}\n`;
}
