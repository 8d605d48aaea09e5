import path from 'node:path';

/**
 * How an interpreter reads its command line, as far as template injection needs it: which
 * words are its code (`node -e CODE`, `sh -c CODE`, the script it runs) and which are data for
 * that code. An option can turn itself or the next word into code (`--eval=…`, `-e`), so
 * untrusted text is refused in every word before the first operand, as the value of an option,
 * and as the first operand (the script, or the code of `sh -c`); the words after it are the
 * program's data (`python3 -c CODE "$data"`, `sh -c CODE sh "$data"`).
 */
interface InterpreterSyntax {
  /** Options whose value is the program's code (`-e`, `--eval`, `-m MODULE`, `-f FILE`): with one, the first operand is data. */
  code: readonly string[];
  /** Options whose value is code loaded before the program (`-r`, `--require`, `-M`): the first operand is still the script. */
  loads?: readonly string[];
  /** Other options that take the next word as their value. */
  valued?: readonly string[];
  /** A short flag that makes the first operand the code (`sh -c`). */
  codeFlag?: string;
  /** Option parsing stops after a code option's value (`python3 -c CODE ARGS…`). */
  codeEndsOptions?: boolean;
  /** A subcommand comes first (`deno eval`, `bun run`). */
  subcommand?: boolean;
}

const shell: InterpreterSyntax = { code: [], valued: ['-o', '+o', '-O', '+O', '--rcfile', '--init-file'], codeFlag: 'c' };

const interpreters: readonly [RegExp, InterpreterSyntax][] = [
  [/^(?:sh|bash|dash|zsh|ksh|mksh|ash|yash|fish)$/, shell],
  [
    /^node(?:js)?$/,
    {
      code: ['-e', '--eval', '-p', '--print'],
      loads: ['-r', '--require', '--import', '--loader', '--experimental-loader'],
      valued: ['-C', '--conditions', '--input-type', '--env-file', '--title', '--inspect-port', '--redirect-warnings'],
    },
  ],
  [/^(?:python|pypy)\d*(?:\.\d+)*$/, { code: ['-c', '-m'], valued: ['-W', '-X', '-Q'], codeEndsOptions: true }],
  [/^perl\d*(?:\.\d+)*$/, { code: ['-e', '-E'], loads: ['-M', '-m'], valued: ['-I'] }],
  [/^ruby\d*(?:\.\d+)*$/, { code: ['-e'], loads: ['-r', '--require'], valued: ['-I', '-C', '-E', '--encoding', '-F'] }],
  [/^php\d*(?:\.\d+)*$/, { code: ['-r', '-R', '-F', '-f'], loads: ['-B', '-E', '-d', '-c', '-z'] }],
  [/^(?:lua|luajit)\d*(?:\.\d+)*$/, { code: [], loads: ['-e', '-l'] }],
  [/^(?:[gmn]?awk)$/, { code: ['-f', '-e', '--source', '--file'], loads: ['-i', '--include', '-l', '--load'], valued: ['-F', '--field-separator', '-v', '--assign'] }],
  [/^g?sed$/, { code: ['-e', '--expression', '-f', '--file'], valued: ['-l', '--line-length'] }],
  [/^deno$/, { code: [], subcommand: true, valued: ['--config', '-c', '--import-map', '--cert', '--location', '--seed', '--lock'] }],
  [/^bun$/, { code: ['-e', '--eval', '-p', '--print'], loads: ['-r', '--preload'], subcommand: true, valued: ['--cwd', '--config', '-c', '--env-file'] }],
  [/^Rscript$/, { code: ['-e'] }],
  [/^osascript$/, { code: ['-e'], valued: ['-l', '-s'] }],
  [/^(?:tclsh|wish)\d*(?:\.\d+)*$/, { code: [] }],
];

/**
 * Programs that run another program named among their words: the words before that program are
 * theirs (options, values, a duration), the rest the other program's command line.
 */
interface WrapperSyntax {
  /** Options that take the next word as their value. */
  valued: readonly string[];
  /** Words before the program that are not options (`timeout 5s …`). */
  operands?: number;
  /** `NAME=VALUE` words set variables (`env`). */
  assignments?: boolean;
  /** Options whose value is itself a command line (`env -S '…'`). */
  code?: readonly string[];
}

const wrappers: Readonly<Record<string, WrapperSyntax>> = {
  env: { valued: ['-u', '--unset', '-C', '--chdir'], assignments: true, code: ['-S', '--split-string'] },
  nice: { valued: ['-n', '--adjustment'] },
  nohup: { valued: [] },
  timeout: { valued: ['-s', '--signal', '-k', '--kill-after'], operands: 1 },
  setsid: { valued: [] },
  stdbuf: { valued: ['-i', '--input', '-o', '--output', '-e', '--error'] },
  time: { valued: ['-f', '--format', '-o', '--output'] },
  xargs: {
    valued: [
      '-a',
      '--arg-file',
      '-d',
      '--delimiter',
      '-E',
      '-e',
      '--eof',
      '-I',
      '--replace',
      '-L',
      '--max-lines',
      '-n',
      '--max-args',
      '-P',
      '--max-procs',
      '-s',
      '--max-chars',
      '--process-slot-var',
    ],
  },
  sudo: {
    valued: [
      '-u',
      '--user',
      '-g',
      '--group',
      '-C',
      '--close-from',
      '-D',
      '--chdir',
      '-h',
      '--host',
      '-p',
      '--prompt',
      '-r',
      '--role',
      '-t',
      '--type',
      '-T',
      '--command-timeout',
      '-U',
      '--other-user',
    ],
  },
  doas: { valued: ['-u', '-C'] },
  busybox: { valued: [] },
};

/** A word of a command line: its text when it is literal, undefined when an expression makes it. */
export type CommandWord = string | undefined;

/** Why a word of a command line is code, by its index in the arguments. */
export type CodePositions = ReadonlyMap<number, string>;

function programName(command: string): string {
  return path.basename(command);
}

function interpreterOf(name: string): InterpreterSyntax | undefined {
  return interpreters.find(([pattern]) => pattern.test(name))?.[1];
}

/**
 * Which arguments of `command` are code, or can become code: for an interpreter, its option
 * words, their values and its first operand; for a wrapper (`env`, `timeout`, `xargs`, …), its
 * own words and the program it runs, then what that program reads as code. A command only known
 * at run time (an expression) may be any interpreter, so every argument is. Arguments of
 * other programs are data.
 */
export function codePositions(command: CommandWord, args: readonly CommandWord[]): CodePositions {
  const positions = new Map<number, string>();
  if (command === undefined) {
    for (const index of args.keys()) positions.set(index, 'an argument of a program only known when the step runs, which may be its code');
    return positions;
  }
  markProgram(programName(command), args, 0, positions);
  return positions;
}

function markProgram(name: string, args: readonly CommandWord[], start: number, positions: Map<number, string>): void {
  const wrapper = Object.hasOwn(wrappers, name) ? wrappers[name] : undefined;
  if (wrapper) {
    markWrapper(name, wrapper, args, start, positions);
    return;
  }
  const syntax = interpreterOf(name);
  if (syntax) markInterpreter(name, syntax, args, start, positions);
}

/** Whether an option word is one of `options` and takes the next word as its value (`--eval CODE`), or carries it (`--eval=CODE`, `-eCODE`). */
function optionValue(word: string, options: readonly string[]): { takesNext: boolean } | undefined {
  for (const option of options) {
    if (word === option) return { takesNext: true };
    if (option.startsWith('--') ? word.startsWith(`${option}=`) : word.startsWith(option)) return { takesNext: false };
  }
  return undefined;
}

/**
 * What an option word of an interpreter does: a long option by name; a short one letter by
 * letter, as a cluster (`-lne`, `-ec`), up to the first letter that takes a value, which is the
 * rest of the word or else the next word.
 */
function readOption(word: string, syntax: InterpreterSyntax): { code: 'program' | 'loaded' | undefined; takesNext: boolean } | undefined {
  const kinds = [
    ['program', syntax.code],
    ['loaded', syntax.loads ?? []],
    [undefined, syntax.valued ?? []],
  ] as const;
  if (word.startsWith('--')) {
    for (const [code, options] of kinds) {
      const value = optionValue(word, options);
      if (value) return { code, ...value };
    }
    return undefined;
  }
  for (let index = 1; index < word.length && /[A-Za-z0-9]/.test(word[index]!); index += 1) {
    const option = `${word[0]}${word[index]}`;
    const rest = word.slice(index + 1);
    // `-pe`: the rest may be more flags (`-p -e`) or the value; with only letters left, the next word may be the value.
    const takesNext = /^[A-Za-z]*$/.test(rest);
    for (const [code, options] of kinds) if (options.includes(option)) return { code, takesNext };
  }
  return undefined;
}

function markInterpreter(name: string, syntax: InterpreterSyntax, args: readonly CommandWord[], start: number, positions: Map<number, string>): void {
  const option = `an option of ${name}, which may run code`;
  let index = start;
  if (syntax.subcommand && typeof args[index] === 'string' && !args[index]!.startsWith('-')) positions.set(index++, `the subcommand of ${name}`);
  let programGiven = false;
  let codeFromFlag = false;
  for (; index < args.length; index += 1) {
    const word = args[index];
    if (word === undefined) {
      // An expression where an option may be: it may be one, and make any later word code.
      const itself = codeFromFlag
        ? `the code ${name} runs (-${syntax.codeFlag})`
        : programGiven
          ? `an option of ${name}, which may run code`
          : `the script ${name} runs, or an option of it, which may run code`;
      positions.set(index, itself);
      for (index += 1; index < args.length; index += 1) positions.set(index, `a word after an expression where ${name} reads options, which may make it code`);
      return;
    }
    if (!/^[-+]./.test(word)) break;
    positions.set(index, option);
    if (word === '--') {
      index += 1;
      break;
    }
    if (syntax.codeFlag && new RegExp(`^-[A-Za-z]*${syntax.codeFlag}[A-Za-z]*$`).test(word)) codeFromFlag = true;
    const read = readOption(word, syntax);
    if (read?.takesNext && index + 1 < args.length)
      positions.set(++index, read.code === undefined ? `the value of ${name}'s option ${word}` : `code ${name} ${read.code === 'program' ? 'runs' : 'loads'} (${word})`);
    if (read?.code === 'program') {
      programGiven = true;
      if (syntax.codeEndsOptions) {
        index += 1;
        break;
      }
    }
  }
  if (index < args.length && !programGiven) positions.set(index, codeFromFlag ? `the code ${name} runs (-${syntax.codeFlag})` : `the script ${name} runs`);
}

function markWrapper(name: string, syntax: WrapperSyntax, args: readonly CommandWord[], start: number, positions: Map<number, string>): void {
  let operands = syntax.operands ?? 0;
  for (let index = start; index < args.length; index += 1) {
    const word = args[index];
    const own = `a word of ${name}, which runs the program its words name`;
    if (word === undefined) {
      // Where the program starts is not known: every later word may be it, or its code.
      for (; index < args.length; index += 1) positions.set(index, own);
      return;
    }
    if (word === '--') {
      positions.set(index, own);
      continue;
    }
    if (/^-./.test(word)) {
      positions.set(index, own);
      const code = optionValue(word, syntax.code ?? []);
      const valued = code ?? optionValue(word, syntax.valued);
      if (valued?.takesNext && index + 1 < args.length) positions.set(++index, code ? `the command line ${name} runs (${word})` : own);
      if (code) {
        // A command line given as one string: whatever follows is part of it.
        for (index += 1; index < args.length; index += 1) positions.set(index, `the command line ${name} runs`);
        return;
      }
      continue;
    }
    if (syntax.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
    if (operands > 0) {
      operands -= 1;
      continue;
    }
    positions.set(index, `the program ${name} runs`);
    markProgram(programName(word), args, index + 1, positions);
    return;
  }
}
