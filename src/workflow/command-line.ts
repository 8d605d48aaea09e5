import { closingBraces } from './expressions/index.js';

/**
 * The command line of an `exec:` step, split into a program and its arguments as a shell would
 * split it (words, single and double quotes, backslash), with nothing else a shell does: no
 * variables, no globs, no pipes or redirects. A line that would need any of those is refused with
 * the offset of the character, so the author writes `shell:` and means it. `${{ … }}` templates
 * are kept whole inside their word, to be evaluated per word as `exec` arguments are.
 */
export type SplitCommandLine = { words: string[] } | Refused;
type Refused = { problem: { offset: number; message: string } };

const insteadOfShell = 'rho runs an exec: line without a shell; write the step as shell: … if it needs one, or quote the character';

/** Unquoted characters that mean something to a shell, and what they mean there. */
const shellSyntax: Readonly<Record<string, string>> = {
  '|': 'a pipe |',
  '&': '& (background or &&)',
  ';': '; (a command separator)',
  '<': 'a redirect <',
  '>': 'a redirect >',
  '(': '( (a subshell)',
  ')': ') (a subshell)',
  '`': 'a command substitution `…`',
  $: '$ (an expansion; rho’s own are ${{ … }})',
  '*': 'a glob *',
  '?': 'a glob ?',
  '[': 'a glob [',
  '\n': 'a line break (a command separator)',
};

/** Shell syntax only at the start of a word. */
const wordStartSyntax: Readonly<Record<string, string>> = { '~': '~ (the home directory)', '#': '# (a comment)' };

/** A `NAME=value` first word: a shell sets a variable and runs the rest. */
const assignment = /^[A-Za-z_][A-Za-z0-9_]*=/;

export function splitCommandLine(line: string): SplitCommandLine {
  const words: string[] = [];
  const refuse = (offset: number, what: string): Refused => ({ problem: { offset, message: `${what} needs a shell: ${insteadOfShell}` } });
  let word = '';
  let inWord = false;
  let wordStart = 0;
  const start = (at: number) => {
    if (!inWord) wordStart = at;
    inWord = true;
  };
  // The first word as written decides whether a shell would read it as something else.
  const endWord = (end: number): SplitCommandLine | undefined => {
    if (!inWord) return undefined;
    const raw = line.slice(wordStart, end);
    if (words.length === 0 && assignment.test(raw)) return refuse(wordStart, `${raw.split('=')[0]}=… (a variable for the command; set it under env:)`);
    if (words.length === 0 && raw === '!') return refuse(wordStart, '! (negating the exit status)');
    words.push(word);
    word = '';
    inWord = false;
    return undefined;
  };
  let index = 0;
  while (index < line.length) {
    const char = line[index]!;
    if (line.startsWith('${{', index)) {
      const end = templateEnd(line, index);
      if (end === undefined) return { problem: { offset: index, message: '${{ is not closed by }}' } };
      start(index);
      word += line.slice(index, end);
      index = end;
      continue;
    }
    if (char === ' ' || char === '\t') {
      const refused = endWord(index);
      if (refused) return refused;
      index += 1;
      continue;
    }
    if (char === "'") {
      const close = line.indexOf("'", index + 1);
      if (close < 0) return { problem: { offset: index, message: 'this single quote is not closed' } };
      start(index);
      word += line.slice(index + 1, close);
      index = close + 1;
      continue;
    }
    if (char === '"') {
      start(index);
      const quoted = readDoubleQuoted(line, index, refuse);
      if (!('text' in quoted)) return quoted;
      word += quoted.text;
      index = quoted.end;
      continue;
    }
    if (char === '\\') {
      if (index + 1 >= line.length) return { problem: { offset: index, message: 'the line ends with a backslash that escapes nothing' } };
      // A backslash before a line break joins the lines, as in a shell.
      if (line[index + 1] !== '\n') {
        start(index);
        word += line[index + 1];
      }
      index += 2;
      continue;
    }
    const syntax = shellSyntax[char] ?? (inWord ? undefined : wordStartSyntax[char]);
    if (syntax !== undefined) return refuse(index, syntax);
    start(index);
    word += char;
    index += 1;
  }
  const refused = endWord(line.length);
  if (refused) return refused;
  if (words.length === 0) return { problem: { offset: 0, message: 'an exec: line names a program to run' } };
  return { words };
}

/**
 * The inside of a double-quoted string starting at `open`: a backslash escapes `$`, a backtick,
 * `"`, `\` and a line break there, as in a shell, and stays otherwise; `$` and a backtick would
 * expand, so they are refused.
 */
function readDoubleQuoted(line: string, open: number, refuse: (offset: number, what: string) => Refused): { text: string; end: number } | Refused {
  let text = '';
  let index = open + 1;
  while (index < line.length) {
    const char = line[index]!;
    if (char === '"') return { text, end: index + 1 };
    if (line.startsWith('${{', index)) {
      const end = templateEnd(line, index);
      if (end === undefined) return { problem: { offset: index, message: '${{ is not closed by }}' } };
      text += line.slice(index, end);
      index = end;
      continue;
    }
    if (char === '\\' && index + 1 < line.length && '$`"\\\n'.includes(line[index + 1]!)) {
      if (line[index + 1] !== '\n') text += line[index + 1];
      index += 2;
      continue;
    }
    if (char === '$' || char === '`') return refuse(index, `${shellSyntax[char]} inside double quotes`);
    text += char;
    index += 1;
  }
  return { problem: { offset: open, message: 'this double quote is not closed' } };
}

/** The offset just past the `}}` closing the template opened at `open`, as the expression parser reads it. */
function templateEnd(line: string, open: number): number | undefined {
  const braces = closingBraces(line, open + 3);
  return braces < 0 ? undefined : braces + 2;
}
