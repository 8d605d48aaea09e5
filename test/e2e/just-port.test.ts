import { constants } from 'node:fs';
import { access, chmod, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

// workflows/ports/just.yml, the port of just's own justfile, run as its users would run it: each
// program a recipe calls is a stub first on PATH that records its argv, so the test sees exactly
// what each task runs and in which order, and compares it with what the recipe's lines run.
const port = path.join(repoRoot, 'workflows', 'ports', 'just.yml');
const directories = temporaryDirectories('rho-just-port-');
afterAll(() => directories.removeAll());

/**
 * Records its name and arguments, tab-separated, one call a line, in `log`; answers the few calls
 * whose output a recipe reads (a clone's README holds `note`). Both are written into the script:
 * a process inherits no test variable from rho's environment.
 */
const stub = (log: string, note = '') => `#!/bin/sh
name=\${0##*/}
{ printf '%s' "$name"; for arg in "$@"; do printf '\\t%s' "$arg"; done; printf '\\n'; } >> '${log}'
case "$name $*" in
  "git rev-parse --abbrev-ref HEAD") echo feature ;;
  "git log --pretty=format:- %s") printf -- '- First commit' ;;
  "cargo lrun -- --man") echo '.TH JUST 1' ;;
  "git tag -d test-release" | "git push origin :test-release") exit 1 ;;
  "git clone --depth 1 git@github.com:casey/just.git tmp/release")
    mkdir -p tmp/release
    printf '[package]\\nversion = "1.2.3"\\n[dependencies]\\nx = { version = "9" }\\n' > tmp/release/Cargo.toml
    printf '# just %s\\n' '${note}' > tmp/release/README.md ;;
  "just --completions bash") echo 'complete -F _just just' ;;
esac
`;
// Programs the recipes run that a test machine may lack; node and sh are the real ones.
const stubbed = ['cargo', 'mdbook', 'git', 'rustup', 'changeling', 'shellcheck', 'man', 'sd', 'cc', 'python3', 'perl', 'nu', 'ruby', 'just'];

/** Each checkout's stubs: programs outside the workspace, as installed programs are (process(cargo) means a cargo found there). */
const stubsOf = new Map<string, string>();

/** The log a checkout's stubs write. */
const logOf = (dir: string) => path.join(dir, '.calls', 'log');

/** A checkout of just with what the recipes touch: bin/forbid (a stub too), sources, the changelog; `note` goes into a clone's README. */
async function checkout(note = ''): Promise<string> {
  const dir = await directories.make();
  await writeFiles(dir, { 'bin/forbid': stub(logOf(dir)), 'src/lexer.rs': '', 'src/parser.rs': '', 'CHANGELOG.md': 'Changelog\n', '.calls/log': '' });
  await chmod(path.join(dir, 'bin', 'forbid'), 0o755);
  const stubs = path.join(await directories.make(), 'bin');
  await mkdir(stubs);
  await writeFile(path.join(stubs, 'stub'), stub(logOf(dir), note));
  await chmod(path.join(stubs, 'stub'), 0o755);
  for (const name of stubbed) await symlink('stub', path.join(stubs, name));
  stubsOf.set(dir, stubs);
  return dir;
}

/**
 * `rho run just.yml TASK ARGS` in the checkout. The stubs' log is the one write the port does
 * not grant (its recipes never make it), so the run adds that rule for it alone.
 */
async function just(dir: string, args: readonly string[], cwd = dir) {
  const result = await runCli(['run', port, '-w', dir, '--output', 'plain', '--allow', 'write(.calls/**)', ...args], {
    cwd,
    env: { PATH: `${stubsOf.get(dir)}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  const log = await readFile(logOf(dir), 'utf8');
  return {
    ...result,
    calls: log
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t')),
  };
}

async function hasProgram(name: string): Promise<boolean> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    if (
      await access(path.join(dir, name), constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

const watch = (exec: string) => [['cargo', 'watch', '--clear', '--exec', exec]];

describe.concurrent('the port of just’s justfile (end to end)', () => {
  it('validates cleanly and lists every recipe under its name, with its doc comment', async () => {
    const dir = await directories.make();
    const validated = await runCli(['validate', port], { cwd: dir });
    expect(validated.exitCode, validated.stdout + validated.stderr).toBe(0);
    expect(validated.stderr).toBe('');
    const listed = await runCli(['list', port, '--json'], { cwd: dir });
    expect(listed.exitCode, listed.stderr).toBe(0);
    const tasks = (JSON.parse(listed.stdout) as { tasks: { name: string; description?: string }[] }).tasks;
    expect(tasks.map((task) => (task.description ? [task.name, task.description] : [task.name]))).toEqual([
      ['watch'],
      ['test'],
      ['check'],
      ['ci'],
      ['run'],
      ['filter', 'only run tests matching `PATTERN`'],
      ['build'],
      ['fmt'],
      ['shellcheck'],
      ['man'],
      ['view-man'],
      ['doc'],
      ['update-changelog', 'add git log messages to changelog'],
      ['update-contributors'],
      ['action-versions'],
      ['outdated'],
      ['unused'],
      ['publish', 'publish current GitHub master branch'],
      ['readme-version-notes'],
      ['done', 'clean up feature branch BRANCH'],
      ['install', 'install just from crates.io'],
      ['install-dev-deps', 'install development dependencies'],
      ['clippy', "everyone's favorite animate paper clip"],
      ['forbid'],
      ['replace'],
      ['test-quine'],
      ['quine', 'make a quine, compile it, and verify it'],
      ['build-book'],
      ['print-readme-constants-table'],
      ['polyglot', 'run all polyglot recipes'],
      ['python'],
      ['js'],
      ['perl'],
      ['sh'],
      ['nu'],
      ['ruby'],
      ['pwd', 'Print working directory, for demonstration purposes!'],
      ['test-release-workflow'],
      ['test-completions'],
      ['rule124'],
    ]);
    const text = await runCli(['list', port], { cwd: dir });
    expect(text.stdout).toMatch(/^ {2}filter PATTERN +only run tests matching `PATTERN`$/m);
    expect(text.stdout).toMatch(/^ {2}test +\[alias: t\]$/m);
    expect(text.stdout).toMatch(/^ {2}watch \[args\.\.\.\]$/m);
  });

  it('runs a one-line recipe as its program with its arguments', async () => {
    const dir = await checkout();
    const result = await just(dir, ['build']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.calls).toEqual([['cargo', 'lbuild']]);
  });

  it('passes what follows -- to the variadic recipe as one --exec word, and uses its default without', async () => {
    const dir = await checkout();
    const given = await just(dir, ['watch', '--', 'ltest', '--tests']);
    expect(given.exitCode, given.stdout + given.stderr).toBe(0);
    expect(given.calls).toEqual(watch('ltest --tests'));
    const other = await checkout();
    const fallback = await just(other, ['watch']);
    expect(fallback.calls).toEqual(watch('lcheck'));
  });

  it('calls the watch recipe with the arguments a dependency gives it, through an alias too', async () => {
    for (const [args, exec] of [
      [['test'], 'ltest --tests --all --all-targets'],
      [['t'], 'ltest --tests --all --all-targets'],
      [['check'], 'lcheck --tests --all --all-targets'],
      [['clippy'], 'lclippy --all --all-targets --all-features -- --deny warnings'],
      [['filter', 'parser'], 'ltest --tests --all --all-targets parser'],
    ] as const) {
      const result = await just(await checkout(), args);
      expect(result.exitCode, result.stdout + result.stderr).toBe(0);
      expect(result.calls, args.join(' ')).toEqual(watch(exec));
    }
  });

  it('runs ci’s dependencies in order, then its own lines, even at -j 4', async () => {
    const dir = await checkout();
    const result = await just(dir, ['ci', '-j', '4']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.calls).toEqual([
      ...watch('ltest --tests --all --all-targets'),
      ['cargo', 'lrun', '--package', 'generate-book'],
      ['mdbook', 'build', 'book/en'],
      ['mdbook', 'build', 'book/zh'],
      ['forbid'],
      ['cargo', 'lclippy', '--all', '--all-targets', '--all-features', '--', '--deny', 'warnings'],
      ['cargo', 'fmt', '--all', '--', '--check'],
      ['cargo', 'update', '--locked', '--package', 'just'],
    ]);
    // The called recipes' lines are nested steps, named by their path.
    expect(result.stdout).toMatch(/✔ +build-book\/mdbook-2 +success/);
  });

  it('finds the current branch when done is not given one', async () => {
    const clean = (branch: string) => [
      ['git', 'checkout', 'master'],
      ['git', 'diff', '--no-ext-diff', '--quiet', '--exit-code'],
      ['git', 'pull', '--rebase', 'github', 'master'],
      ['git', 'diff', '--no-ext-diff', '--quiet', '--exit-code', branch],
      ['git', 'branch', '-D', branch],
    ];
    const current = await just(await checkout(), ['done']);
    expect(current.exitCode, current.stdout + current.stderr).toBe(0);
    expect(current.calls).toEqual([['git', 'rev-parse', '--abbrev-ref', 'HEAD'], ...clean('feature')]);
    const named = await just(await checkout(), ['done', '-i', 'BRANCH=topic']);
    expect(named.calls).toEqual(clean('topic'));
  });

  it('writes the man page and the changelog through the shell lines’ redirects', async () => {
    const dir = await checkout();
    const man = await just(dir, ['view-man']);
    expect(man.exitCode, man.stdout + man.stderr).toBe(0);
    expect(man.calls).toEqual([
      ['cargo', 'lrun', '--', '--man'],
      ['man', 'man/just.1'],
    ]);
    expect(await readFile(path.join(dir, 'man', 'just.1'), 'utf8')).toBe('.TH JUST 1\n');
    const changelog = await just(dir, ['update-changelog']);
    expect(changelog.exitCode, changelog.stdout + changelog.stderr).toBe(0);
    expect(await readFile(path.join(dir, 'CHANGELOG.md'), 'utf8')).toBe('Changelog\n\n- First commit');
  });

  it('expands replace’s glob in the shell and keeps each value one argument', async () => {
    const dir = await checkout();
    const result = await just(dir, ['replace', '-i', 'FROM=Lexer', '-i', 'TO=Token lexer']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.calls).toEqual([['sd', 'Lexer', 'Token lexer', 'src/lexer.rs', 'src/parser.rs']]);
  });

  it('runs each polyglot recipe with its interpreter', async () => {
    const dir = await checkout();
    const result = await just(dir, ['polyglot']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.calls).toEqual([
      ['python3', '-c', "print('Hello from python!')"],
      ['perl', '-e', 'print "Larry Wall says Hi!\\n";'],
      ['ruby', '-e', 'puts "Hello from ruby!"'],
    ]);
    expect(result.stdout).toContain('Greetings from JavaScript!');
    expect(result.stdout).toContain('Yo from a shell script!');
  });

  it('goes on past the lines whose failure the recipe ignores', async () => {
    const result = await just(await checkout(), ['test-release-workflow']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.calls, result.stdout).toEqual([
      ['git', 'tag', '-d', 'test-release'],
      ['git', 'push', 'origin', ':test-release'],
      ['git', 'tag', 'test-release'],
      ['git', 'push', 'origin', 'test-release'],
    ]);
  });

  it('publishes the version Cargo.toml names first, and only when the README no longer mentions master', async () => {
    const dir = await checkout();
    const result = await just(dir, ['publish']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.calls).toEqual([
      ['git', 'clone', '--depth', '1', 'git@github.com:casey/just.git', 'tmp/release'],
      ['git', 'tag', '-a', '1.2.3', '-m', 'Release 1.2.3'],
      ['git', 'push', 'origin', '1.2.3'],
      ['cargo', 'publish'],
    ]);
    await expect(stat(path.join(dir, 'tmp', 'release'))).rejects.toThrow();
    const noted = await checkout('<sup>master</sup>');
    const refused = await just(noted, ['publish'], noted);
    expect(refused.exitCode).toBe(1);
    expect(refused.calls).toEqual([['git', 'clone', '--depth', '1', 'git@github.com:casey/just.git', 'tmp/release']]);
  });

  it('sets up the completion test directory with the files the recipe writes', async () => {
    const dir = await checkout();
    await writeFiles(dir, { 'target/debug/just': stub(logOf(dir)) });
    await chmod(path.join(dir, 'target', 'debug', 'just'), 0o755);
    const result = await just(dir, ['test-completions']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.calls).toEqual([
      ['cargo', 'lbuild'],
      ['just', '--completions', 'bash'],
    ]);
    const complete = path.join(dir, 'tmp', 'complete');
    expect(await readFile(path.join(complete, 'just.bash'), 'utf8')).toBe('complete -F _just just\n');
    expect(await readFile(path.join(complete, 'justfile'), 'utf8')).toBe('alias hello := foo::bar\nmod foo\n');
    expect(await readFile(path.join(complete, 'foo.just'), 'utf8')).toBe('bar:\n');
  });

  it('makes a quine that reproduces itself, with the real cc when there is one', async () => {
    const dir = await checkout();
    // Unconfined, as the header says: the recipe ends by removing the directory it wrote in.
    const result = await runCli(['run', port, '-w', dir, '--output', 'plain', '--sandbox', 'off', 'quine'], { cwd: dir });
    if (await hasProgram('cc')) {
      expect(result.exitCode, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toContain('[echo] It was a quine!');
      await expect(stat(path.join(dir, 'tmp'))).rejects.toThrow();
    } else {
      expect(result.stdout).toMatch(/First failure: cc\b/);
    }
  });

  it('prints the directory it was invoked from, as invocation_directory() does', async () => {
    const dir = await checkout();
    const result = await just(dir, ['pwd'], path.join(dir, 'src'));
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(`[echo] ${path.join(dir, 'src')}`);
  });
});
