import { describe, expect, it } from 'vitest';
import { codePositions, type CommandWord } from '../../src/workflow/interpreter-code.js';

/** The indexes of `args` that are code for `command`; `$` stands for a word made by an expression. */
function codeAt(command: string, ...args: string[]): number[] {
  const words: CommandWord[] = args.map((arg) => (arg === '$' ? undefined : arg));
  return [...codePositions(command === '$' ? undefined : command, words).keys()].sort((a, b) => a - b);
}

describe('which arguments an interpreter reads as code', () => {
  it.each([
    // [command, args, code positions]
    ['node', ['-e', '$'], [0, 1]],
    ['node', ['--eval', 'x', '$'], [0, 1, 2]],
    ['node', ['--eval=x', 'data'], [0]],
    ['node', ['-pe', '$'], [0, 1]],
    ['node', ['-r', './x.js', 'script.js', 'data'], [0, 1, 2]],
    ['node', ['script.js', '--flag', 'data'], [0]],
    ['/usr/bin/nodejs', ['$'], [0]],
    ['python3', ['-c', 'code', 'data', '--flag'], [0, 1]],
    ['python3.12', ['-Bc', 'code', 'data'], [0, 1]],
    ['python3', ['-m', 'pytest', '-k', 'data'], [0, 1]],
    ['python3', ['-W', 'error', 'script.py', 'data'], [0, 1, 2]],
    ['sh', ['-c', 'echo "$1"', 'sh', 'data'], [0, 1]],
    ['bash', ['-euc', 'code', 'bash', 'data'], [0, 1]],
    ['bash', ['-o', 'pipefail', '-c', 'code', 'data'], [0, 1, 2, 3]],
    ['zsh', ['script.zsh', 'data'], [0]],
    ['perl', ['-lne', 'code', 'file'], [0, 1]],
    ['perl', ['-Mstrict', '-e', 'code', 'data'], [0, 1, 2]],
    ['ruby', ['-e', 'code', 'data'], [0, 1]],
    ['php', ['-r', 'code', 'data'], [0, 1]],
    ['deno', ['eval', 'code', 'data'], [0, 1]],
    ['deno', ['run', '--allow-read', 'main.ts', 'data'], [0, 1, 2]],
    ['awk', ['-F', ':', '{ print $1 }', 'file'], [0, 1, 2]],
    ['awk', ['-f', 'prog.awk', 'file'], [0, 1]],
    ['sed', ['-e', 's/a/b/', 'file'], [0, 1]],
    ['sed', ['s/a/b/', 'file'], [0]],
    ['lua', ['-e', 'x = 1', 'script.lua', 'data'], [0, 1, 2]],
    // A word made by an expression where options are read may be one that makes the rest code.
    ['node', ['$', 'data'], [0, 1]],
  ])('%s %j', (command, args, expected) => {
    expect(codeAt(command, ...args)).toEqual(expected);
  });

  it('follows wrappers to the program they run', () => {
    expect(codeAt('env', 'A=1', '-u', 'B', 'sh', '-c', 'code', 'sh', 'data')).toEqual([1, 2, 3, 4, 5]);
    expect(codeAt('env', '-S', 'node -e x', 'data')).toEqual([0, 1, 2]);
    expect(codeAt('timeout', '-k', '5', '10s', 'python3', '-c', 'code', 'data')).toEqual([0, 1, 3, 4, 5]);
    expect(codeAt('nice', '-n', '5', 'xargs', '-n', '1', 'perl', '-e', 'code')).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(codeAt('env', 'A=1', 'echo', 'data')).toEqual([1]);
    expect(codeAt('env', '$', 'echo', 'data')).toEqual([0, 1, 2]);
  });

  it('reads the arguments of other programs as data, and those of a program only known at run time as code', () => {
    expect(codeAt('echo', '-e', 'data')).toEqual([]);
    expect(codeAt('git', 'commit', '-m', 'data')).toEqual([]);
    expect(codeAt('$', 'a', 'b')).toEqual([0, 1]);
  });
});
