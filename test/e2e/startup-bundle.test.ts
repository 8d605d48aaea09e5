import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { commandOf, compileCacheDir } from '../../src/boot/compile-cache.js';
import { cliPath, repoRoot, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

const oneStep = 'version: 1\nname: one\nsteps:\n  - id: s1\n    tool: echo\n    with: { value: hi }\n';

/** The built CLI run by node with `preload` (its flag and module) before it, as CI would run it. */
function runPreloaded(preload: readonly string[], args: readonly string[], cwd: string, env: Record<string, string>) {
  return execa('node', [...preload, cliPath, ...args], { cwd, env: { CI: 'true', NO_COLOR: '1', ...env }, reject: false, stdin: 'ignore', timeout: 30_000 });
}

/** Preloaded hooks that name every file the CLI loads, ES module or CommonJS, one `loaded <url>` line each on stderr. */
const recorder = `data:text/javascript,${encodeURIComponent(
  `import Module, { register } from 'node:module';
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (!Module.isBuiltin(request)) {
    try { process.stderr.write('loaded file://' + Module._resolveFilename(request, parent, isMain) + '\\n'); } catch {}
  }
  return load.apply(this, arguments);
};
register('data:text/javascript,' + encodeURIComponent(\`export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (result.url.startsWith('file:')) process.stderr.write('loaded ' + result.url + '\\\\n');
  return result;
}\`));`,
)}`;

async function loadedFiles(args: readonly string[], cwd: string, env: Record<string, string>): Promise<{ exitCode: number | undefined; urls: string[] }> {
  const result = await runPreloaded(['--import', recorder], args, cwd, env);
  const urls = [
    ...new Set(
      String(result.stderr)
        .split('\n')
        .filter((line) => line.startsWith('loaded '))
        .map((line) => line.slice('loaded '.length)),
    ),
  ];
  return { exitCode: result.exitCode, urls };
}

/** Runs the CLI with a preloaded script that prints, as the process exits, what `expression` (JavaScript) is then. */
async function valueAtExit(
  expression: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ exitCode: number | undefined; value: string | undefined }> {
  const probe = path.join(cwd, 'value-at-exit.cjs');
  await writeFile(probe, `process.on('exit', () => process.stderr.write('value at exit: ' + (${expression}) + '\\n'));\n`);
  const result = await runPreloaded(['-r', probe], args, cwd, env);
  return { exitCode: result.exitCode, value: /value at exit: (\w+)/.exec(String(result.stderr))?.[1] };
}

/** A workspace with the one-step workflow and a cache directory of its own. */
async function setup(): Promise<{ dir: string; env: Record<string, string>; cacheDir: string }> {
  const dir = await directories.make();
  await writeFiles(dir, { 'one.yml': oneStep });
  const env = { XDG_CACHE_HOME: path.join(dir, 'cache') };
  return { dir, env, cacheDir: compileCacheDir(env)! };
}

async function cacheFiles(cacheDir: string): Promise<string[]> {
  return readdir(cacheDir).catch(() => []);
}

describe.concurrent('start-up path', () => {
  it('loads bin/run.cjs, the cache loader, the command names and the bundle, nothing else of rho or its dependencies', async () => {
    const { dir, env } = await setup();
    for (const run of ['without a cache', 'with the cache']) {
      const { exitCode, urls } = await loadedFiles(['run', 'one.yml'], dir, env);
      expect(exitCode, run).toBe(0);
      const expected = [
        cliPath,
        path.join(repoRoot, 'dist/cli/compile-cache.cjs'),
        path.join(repoRoot, 'dist/cli/command-words.json'),
        path.join(repoRoot, 'dist/cli/rho.cjs'),
      ].map((file) => pathToFileURL(file).href);
      expect(
        urls.filter((url) => !expected.includes(url)),
        run,
      ).toEqual([]);
      expect(urls, run).toEqual(expect.arrayContaining(expected));
    }
  });

  it('builds no zod schema for --help: zod is evaluated only by commands that check something', async () => {
    const { dir, env } = await setup();
    // zod's first module creates this global.
    const zodEvaluated = "'__zod_globalConfig' in globalThis";
    expect(await valueAtExit(zodEvaluated, ['--help'], dir, env)).toEqual({ exitCode: 0, value: 'false' });
    expect(await valueAtExit(zodEvaluated, ['list', 'one.yml'], dir, env)).toEqual({ exitCode: 0, value: 'true' });
  });

  it('starts no network proxy, so loads no node:http, for a run whose policy grants no network host', async () => {
    const { dir, env } = await setup();
    await writeFiles(dir, { 'hosts.yml': `${oneStep}policy:\n  allow: ["network(registry.npmjs.org)"]\n` });
    const httpLoaded = "process.moduleLoadList.includes('NativeModule http')";
    expect(await valueAtExit(httpLoaded, ['run', 'one.yml'], dir, env)).toEqual({ exitCode: 0, value: 'false' });
    // Confined (CI runs where bubblewrap works), a network(HOST) rule needs the proxy.
    expect(await valueAtExit(httpLoaded, ['run', 'hosts.yml'], dir, env)).toEqual({ exitCode: 0, value: 'true' });
  });

  it('answers --version without loading anything beyond bin/run.cjs', async () => {
    const { dir, env } = await setup();
    const { exitCode, urls } = await loadedFiles(['--version'], dir, env);
    expect(exitCode).toBe(0);
    expect(urls).toEqual([pathToFileURL(cliPath).href]);
  });
});

describe.concurrent('compile cache', () => {
  it('is written by the first run, private to the user, and used as it is by the next', async () => {
    const { dir, env, cacheDir } = await setup();
    const first = await runCli(['run', 'one.yml'], { cwd: dir, env });
    expect(first.exitCode).toBe(0);
    const [file, ...others] = await cacheFiles(cacheDir);
    expect(others).toEqual([]);
    const written = await stat(path.join(cacheDir, file!));
    expect(written.mode & 0o777).toBe(0o600);
    expect((await stat(cacheDir)).mode & 0o777).toBe(0o700);
    const second = await runCli(['run', 'one.yml'], { cwd: dir, env });
    expect(second.exitCode).toBe(0);
    const timeless = (text: string) => text.replace(/ *\d+ms/g, ' N ms');
    expect(timeless(second.stdout)).toBe(timeless(first.stdout));
    // A cache V8 accepted is not written again.
    const after = await stat(path.join(cacheDir, file!));
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
  });

  it('is kept per command, so a first --help does not leave every later run compiling its own code', async () => {
    const { dir, env, cacheDir } = await setup();
    expect((await runCli(['--help'], { cwd: dir, env })).exitCode).toBe(0);
    const [helpFile] = await cacheFiles(cacheDir);
    expect((await runCli(['run', 'one.yml'], { cwd: dir, env })).exitCode).toBe(0);
    const files = await cacheFiles(cacheDir);
    expect(files).toHaveLength(2);
    const runFile = files.find((file) => file !== helpFile)!;
    const written = await stat(path.join(cacheDir, runFile));
    expect((await runCli(['run', 'one.yml'], { cwd: dir, env })).exitCode).toBe(0);
    const after = await stat(path.join(cacheDir, runFile));
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
    expect((await runCli(['help'], { cwd: dir, env })).exitCode).toBe(0);
    expect(await cacheFiles(cacheDir)).toHaveLength(2);
  });

  it('keeps one file per command, and one for every unknown word typed', async () => {
    const { dir, env, cacheDir } = await setup();
    const commands = [
      'run one.yml',
      'list one.yml',
      'validate one.yml',
      'plan one.yml',
      'tools',
      'schema workflow',
      'help run',
      'hooks schema envelope',
      'autocomplete bash',
      'init --force',
    ];
    for (const command of commands) expect((await runCli(command.split(' '), { cwd: dir, env })).exitCode, command).toBe(0);
    expect(await cacheFiles(cacheDir)).toHaveLength(commands.length);
    for (let i = 0; i < 3; i++) expect((await runCli([`nosuch${i}`], { cwd: dir, env })).exitCode).toBe(2);
    expect(await cacheFiles(cacheDir)).toHaveLength(commands.length + 1);
  });

  it('replaces a damaged cache file and runs as without one', async () => {
    const { dir, env, cacheDir } = await setup();
    expect((await runCli(['run', 'one.yml'], { cwd: dir, env })).exitCode).toBe(0);
    const [file] = await cacheFiles(cacheDir);
    const garbage = Buffer.alloc(4096, 0x5a);
    await writeFile(path.join(cacheDir, file!), garbage);
    const result = await runCli(['run', 'one.yml'], { cwd: dir, env });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/\[s1\] hi/);
    expect(await readFile(path.join(cacheDir, file!))).not.toEqual(garbage);
  });

  it('drops the file of an older build of the same bundle when it writes a new one', async () => {
    const { dir, env, cacheDir } = await setup();
    expect((await runCli(['run', 'one.yml'], { cwd: dir, env })).exitCode).toBe(0);
    const [file] = await cacheFiles(cacheDir);
    const older = `${file!.split('-')[0]}-0000000000000000.bin`;
    await writeFile(path.join(cacheDir, older), 'stale');
    await writeFile(path.join(cacheDir, file!), 'damaged');
    expect((await runCli(['run', 'one.yml'], { cwd: dir, env })).exitCode).toBe(0);
    expect(await cacheFiles(cacheDir)).toEqual([file]);
  });

  it('is skipped quietly where it cannot be written, and not kept at all with RHO_NO_COMPILE_CACHE=1', async () => {
    const { dir, env, cacheDir } = await setup();
    await mkdir(path.dirname(cacheDir), { recursive: true });
    await writeFile(cacheDir, 'a file where the cache directory would be');
    const blocked = await runCli(['run', 'one.yml'], { cwd: dir, env });
    expect([blocked.exitCode, blocked.stderr]).toEqual([0, '']);

    const other = await setup();
    const off = await runCli(['run', 'one.yml'], { cwd: other.dir, env: { ...other.env, RHO_NO_COMPILE_CACHE: '1' } });
    expect([off.exitCode, off.stderr]).toEqual([0, '']);
    await expect(stat(other.cacheDir)).rejects.toThrow();
  });

  it('still imports tool modules when the bundle came from the cache', async () => {
    const { dir, env, cacheDir } = await setup();
    for (const run of ['without a cache', 'with the cache']) {
      const result = await runCli(['run', path.join(repoRoot, 'workflows/module-tool.yml')], { cwd: dir, env });
      expect([result.exitCode, result.stderr], run).toEqual([0, '']);
      expect(result.stdout, run).toMatch(/\[count\] ✔ success/);
    }
    expect(await cacheFiles(cacheDir)).toHaveLength(1);
  });
});

describe('commandOf', () => {
  const commands = ['hooks', 'list', 'run'];
  it('names the command by its first word, any --help as help, anything else alike', () => {
    expect(commandOf(['run', 'wf.yml'], commands)).toBe('run');
    expect(commandOf(['hooks', 'test'], commands)).toBe('hooks');
    expect(commandOf(['--help'], commands)).toBe('help');
    expect(commandOf(['-h'], commands)).toBe('help');
    expect(commandOf(['run', '--help'], commands)).toBe('help');
    expect(commandOf(['run', 'wf.yml', '-h'], commands)).toBe('help');
    expect(commandOf(['run', 'wf.yml', '--', '--help'], commands)).toBe('run');
    expect(commandOf([], commands)).toBe('-');
    expect(commandOf(['--no-input', 'run'], commands)).toBe('-');
    expect(commandOf(['rnu', 'wf.yml'], commands)).toBe('-');
    expect(commandOf(['../../etc'], commands)).toBe('-');
  });

  it('knows every command of the build', async () => {
    const words = JSON.parse(await readFile(path.join(repoRoot, 'dist/cli/command-words.json'), 'utf8')) as string[];
    const { COMMANDS } = (await import(pathToFileURL(path.join(repoRoot, 'dist/commands/index.js')).href)) as { COMMANDS: Record<string, unknown> };
    expect(words).toEqual([...new Set(Object.keys(COMMANDS).map((id) => id.split(':')[0]))].sort());
  });
});

describe('compileCacheDir', () => {
  it('follows XDG_CACHE_HOME, falls back to ~/.cache, and is off with RHO_NO_COMPILE_CACHE=1', () => {
    expect(compileCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/rho/compile-cache');
    expect(compileCacheDir({})).toMatch(/\/\.cache\/rho\/compile-cache$/);
    expect(compileCacheDir({ XDG_CACHE_HOME: '/x', RHO_NO_COMPILE_CACHE: '1' })).toBeUndefined();
    expect(compileCacheDir({ XDG_CACHE_HOME: 'relative' })).toMatch(/\/\.cache\/rho\/compile-cache$/);
  });
});
