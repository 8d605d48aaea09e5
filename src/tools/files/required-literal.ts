/**
 * The longest run of plain characters every match of a regular expression must contain, read
 * from its source conservatively: only characters at the top level of the pattern (outside any
 * group, class or alternation) that no quantifier can drop count, and anything this reader does
 * not fully understand ends the run. A line without the run cannot match, so a search skips
 * straight to the lines that hold it, as grep and ripgrep do.
 *
 * Undefined when no such run is known: an alternation at the top level, flags other than `i`,
 * or no plain character at all.
 */
export function requiredLiteral(pattern: RegExp): string | undefined {
  if (pattern.flags !== '' && pattern.flags !== 'i') return undefined;
  const source = pattern.source;
  const runs: string[] = [];
  let run = '';
  let lastWasLiteral = false;
  const endRun = () => {
    if (run) runs.push(run);
    run = '';
    lastWasLiteral = false;
  };
  let index = 0;
  while (index < source.length) {
    const char = source[index]!;
    if (char === '|') return undefined;
    if (char === '\\') {
      const escaped = source[index + 1];
      if (escaped === undefined) return undefined;
      if (syntaxCharacters.has(escaped)) {
        run += escaped;
        lastWasLiteral = true;
        index += 2;
      } else {
        endRun();
        index = escapeEnd(source, index);
      }
      continue;
    }
    if (char === '[' || char === '(') {
      // A class or a group is skipped whole: what it requires is not read.
      const end = char === '[' ? classEnd(source, index) : groupEnd(source, index);
      if (end === undefined) return undefined;
      endRun();
      index = end;
      continue;
    }
    const quantifier = quantifierLength(source, index);
    if (quantifier > 0) {
      // The quantified character may be repeated or left out: it cannot stay in the run.
      if (lastWasLiteral) run = run.slice(0, -1);
      endRun();
      index += quantifier;
      if (source[index] === '?') index += 1;
      continue;
    }
    if (plainCharacter(char)) {
      run += char;
      lastWasLiteral = true;
    } else endRun();
    index += 1;
  }
  endRun();
  return runs.reduce<string | undefined>((longest, candidate) => (candidate.length > (longest?.length ?? 0) ? candidate : longest), undefined);
}

/** Characters that stand for themselves when escaped, in every mode. */
const syntaxCharacters: ReadonlySet<string> = new Set('^$\\.*+?()[]{}|/');

/** Characters with a meaning of their own (or one under Annex B, like a lone `{` or `]`). */
const specialCharacters: ReadonlySet<string> = new Set('^$\\.*+?()[]{}|');

function plainCharacter(char: string): boolean {
  return !specialCharacters.has(char);
}

/** Length of a quantifier (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`) starting at `index`, or 0. */
function quantifierLength(source: string, index: number): number {
  const char = source[index];
  if (char === '*' || char === '+' || char === '?') return 1;
  if (char !== '{') return 0;
  braceQuantifier.lastIndex = index;
  const braces = braceQuantifier.exec(source);
  return braces ? braces[0].length : 0;
}

const braceQuantifier = /\{\d+(?:,\d*)?\}/y;

/**
 * Index just past the escape at `start` that is not an escaped syntax character: `\xHH`,
 * `\uHHHH`, `\cX`, `\k<name>` and `\1` or `\012` take the characters after the letter with them.
 */
function escapeEnd(source: string, start: number): number {
  const letter = source[start + 1]!;
  let index = start + 2;
  const take = (allowed: RegExp, most: number) => {
    for (let taken = 0; taken < most && index < source.length && allowed.test(source[index]!); taken++) index += 1;
  };
  if (letter === 'x') take(/[0-9a-fA-F]/, 2);
  else if (letter === 'u') take(/[0-9a-fA-F]/, 4);
  else if (letter === 'c') take(/[A-Za-z]/, 1);
  else if (/[0-9]/.test(letter)) take(/[0-9]/, Infinity);
  else if (letter === 'k' && source[index] === '<') {
    const close = source.indexOf('>', index);
    index = close === -1 ? source.length : close + 1;
  }
  return index;
}

/** Index just past the `]` that closes the class opened at `start` (`[]` is an empty class in JavaScript). */
function classEnd(source: string, start: number): number | undefined {
  let index = start + 1;
  if (source[index] === '^') index += 1;
  while (index < source.length) {
    const char = source[index]!;
    if (char === '\\') index += 2;
    else if (char === ']') return index + 1;
    else index += 1;
  }
  return undefined;
}

/** Index just past the `)` that closes the group opened at `start`, skipping classes and escapes inside it. */
function groupEnd(source: string, start: number): number | undefined {
  let depth = 0;
  let index = start;
  while (index < source.length) {
    const char = source[index]!;
    if (char === '\\') index += 2;
    else if (char === '[') {
      const end = classEnd(source, index);
      if (end === undefined) return undefined;
      index = end;
    } else {
      if (char === '(') depth += 1;
      else if (char === ')') {
        depth -= 1;
        if (depth === 0) return index + 1;
      }
      index += 1;
    }
  }
  return undefined;
}
