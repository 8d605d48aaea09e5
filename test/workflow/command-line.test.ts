import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitCommandLine } from '../../src/workflow/command-line.js';

const words = (line: string) => {
  const split = splitCommandLine(line);
  if ('problem' in split) throw new Error(`refused: ${split.problem.message}`);
  return split.words;
};
const refused = (line: string) => {
  const split = splitCommandLine(line);
  if (!('problem' in split)) throw new Error(`not refused: ${JSON.stringify(split.words)}`);
  return split.problem;
};

/** A word quoted the way a person would write it on a shell line: bare when nothing in it is special, else in single quotes. */
function quoted(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word) && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

describe('splitting an exec: command line', () => {
  it('splits on blanks and keeps quoted and escaped text whole', () => {
    expect(words('cargo fmt --all')).toEqual(['cargo', 'fmt', '--all']);
    expect(words('  cargo\t lbuild  ')).toEqual(['cargo', 'lbuild']);
    expect(words(`git log --pretty='format:- %s'`)).toEqual(['git', 'log', '--pretty=format:- %s']);
    expect(words(`echo "two words" 'it''s' a\\ b`)).toEqual(['echo', 'two words', 'its', 'a b']);
    expect(words(`echo "a \\"quote\\" \\$5 \\\\ and \\n"`)).toEqual(['echo', 'a "quote" $5 \\ and \\n']);
    expect(words(`echo '' ""`)).toEqual(['echo', '', '']);
    expect(words('echo a\\\nb')).toEqual(['echo', 'ab']);
    expect(words(`grep '<sup>master</sup>' README.md`)).toEqual(['grep', '<sup>master</sup>', 'README.md']);
    // Inside single quotes nothing is special.
    expect(words(`sed -En 's/a[[:space:]]*"([^"]+)"/\\1/p' f`)).toEqual(['sed', '-En', 's/a[[:space:]]*"([^"]+)"/\\1/p', 'f']);
    // Characters special only at a word's start are plain inside one.
    expect(words('git push origin :tag a~b c#d')).toEqual(['git', 'push', 'origin', ':tag', 'a~b', 'c#d']);
  });

  it('keeps a ${{ }} template whole inside its word, whatever it holds', () => {
    expect(words("cargo watch --exec ${{ join(inputs.args, ' ') }}")).toEqual(['cargo', 'watch', '--exec', "${{ join(inputs.args, ' ') }}"]);
    expect(words('git branch -D ${{ inputs.BRANCH || rho_trim(steps.head.output) }}')).toEqual(['git', 'branch', '-D', '${{ inputs.BRANCH || rho_trim(steps.head.output) }}']);
    expect(words('echo v${{ inputs.v }}-x "in ${{ format(\'{0} }}\', 1) }}"')).toEqual(['echo', 'v${{ inputs.v }}-x', "in ${{ format('{0} }}', 1) }}"]);
    expect(refused('echo ${{ inputs.x')).toMatchObject({ offset: 5, message: '${{ is not closed by }}' });
  });

  it('refuses every shell operator and expansion at its offset', () => {
    const cases: [string, number, string][] = [
      ['ls | wc', 3, 'a pipe |'],
      ['make &', 5, '&'],
      ['a && b', 2, '&'],
      ['a; b', 1, ';'],
      ['sort < in', 5, 'a redirect <'],
      ['cargo run > out', 10, 'a redirect >'],
      ['(cd x)', 0, '( (a subshell)'],
      ['echo )', 5, ')'],
      ['echo $HOME', 5, '$ (an expansion'],
      ['echo a$', 6, '$'],
      ['echo `date`', 5, 'a command substitution'],
      ['rm *.o', 3, 'a glob *'],
      ['ls file?', 7, 'a glob ?'],
      ['ls [ab]', 3, 'a glob ['],
      ['ls ~/x', 3, '~ (the home directory)'],
      ['echo a #note', 7, '# (a comment)'],
      ['echo a\nrm b', 6, 'a line break'],
      ['echo "$HOME"', 6, '$ (an expansion; rho’s own are ${{ … }}) inside double quotes'],
      ['echo "`date`"', 6, 'inside double quotes'],
      ['FOO=1 make', 0, 'FOO=… (a variable for the command; set it under env:)'],
      ['! grep x f', 0, '! (negating the exit status)'],
    ];
    for (const [line, offset, what] of cases) {
      const problem = refused(line);
      expect(problem.offset, line).toBe(offset);
      expect(problem.message, line).toContain(what);
      expect(problem.message, line).toContain('needs a shell');
      expect(problem.message, line).toContain('shell:');
    }
  });

  it('refuses what cannot be split', () => {
    expect(refused("echo 'open")).toMatchObject({ offset: 5, message: 'this single quote is not closed' });
    expect(refused('echo "open')).toMatchObject({ offset: 5, message: 'this double quote is not closed' });
    expect(refused('echo a\\')).toMatchObject({ offset: 6 });
    expect(refused('   ')).toMatchObject({ message: 'an exec: line names a program to run' });
  });

  it('quoting characters makes them plain', () => {
    expect(words(`echo '|' "&" \\; '$HOME' '*' \\~ '#' "a>b" 'FOO=1' \\!`)).toEqual(['echo', '|', '&', ';', '$HOME', '*', '~', '#', 'a>b', 'FOO=1', '!']);
    expect(words('\\!x')).toEqual(['!x']);
  });

  it('gives back any list of words joined with each word quoted', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '-', '=', ' ', '\t', "'", '"', '\\', '|', '$', '*', '#', '~', '{', '}', '\n', 'é') });
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), (list) => {
        const line = list.map(quoted).join(' ');
        expect(words(line)).toEqual(list);
      }),
    );
  });
});
