import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { userCacheDir } from './cache-base.js';

/*
 * The CLI's start-up, before anything else of rho loads (bin/run.cjs requires this module alone, built to dist/cli/compile-cache.cjs).
 * Node 20 compiles every module again on every start (a module compile cache is Node 22's), and
 * compiling the bundle is otherwise the largest single cost of `rho run`. V8's code cache, kept
 * per user, turns that into reading one file. Figures: bench/README.md.
 */

/** Where compiled code is kept: `compile-cache` in the user's cache (`userCacheDir`); none with RHO_NO_COMPILE_CACHE=1. */
export function compileCacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env['RHO_NO_COMPILE_CACHE'] === '1') return undefined;
  const base = userCacheDir(env);
  return base && path.join(base, 'compile-cache');
}

/** A short name for `text` (64-bit FNV-1a): node:crypto alone costs more to load than the names it would make. */
function digest(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) hash = BigInt.asUintN(64, (hash ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n);
  return hash.toString(16).padStart(16, '0');
}

/**
 * Which command's code a cache holds: its first word when that is one of rho's `commands` (`run`,
 * `list`, `hooks`), `help` for `--help` and any command's `--help`, and `-` for anything else (a
 * typo, a flag first). The cache holds the functions the run that wrote it compiled, and a cache
 * V8 accepts is not written again, so a cache shared by all commands would keep, say, only
 * `--help`'s code if that ran first, and every later `rho run` would compile its own code again;
 * `rho run --help` run first would do the same to `run`'s. One build so keeps at most a file per
 * command and two more.
 */
export function commandOf(argv: readonly string[], commands: readonly string[]): string {
  const first = argv[0] ?? '';
  const options = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  if (options.includes('--help') || options.includes('-h')) return 'help';
  return commands.includes(first) ? first : '-';
}

/**
 * Cache file names: one prefix per bundle location (so a newer build replaces the older one's
 * files instead of piling up), then the command, then what the cached code is only valid for.
 * V8 checks its own version and flags and the source's length, not its content, so the file's
 * size and modification time are part of the name.
 */
function cacheFileOf(file: string, dir: string, command: string): CacheFile {
  const { size, mtimeMs } = statSync(file);
  const prefix = digest(file);
  const build = digest(`${size}:${mtimeMs}:${process.version}:${process.arch}`);
  return { dir, prefix, build, name: `${prefix}-${digest(command)}-${build}.bin` };
}

interface CacheFile {
  dir: string;
  prefix: string;
  build: string;
  name: string;
}

function readCache(cacheFile: string): Buffer | undefined {
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

/**
 * Writes the cache whole (a new file renamed into place) and removes older builds' files; a
 * cache that cannot be written is skipped.
 */
function storeCache(cache: CacheFile, data: Buffer): void {
  const target = path.join(cache.dir, cache.name);
  const partial = `${target}.${process.pid}.tmp`;
  try {
    mkdirSync(cache.dir, { recursive: true, mode: 0o700 });
    const ours = readdirSync(cache.dir).filter((entry) => entry.startsWith(`${cache.prefix}-`));
    for (const entry of ours) {
      if (!entry.endsWith(`-${cache.build}.bin`)) rmSync(path.join(cache.dir, entry), { force: true });
    }
    writeFileSync(partial, data, { mode: 0o600 });
    renameSync(partial, target);
  } catch {
    // The cache only saves time; rho runs the same without it.
  }
}

/**
 * Loads a CommonJS bundle as `require` would, and registers it in `require.cache` so that later
 * requires of it (oclif loading its commands) get the same module, but compiles it with V8's
 * code cache from `cacheDir`, the one kept for `command` (see `commandOf`). When there was no usable cache, one is written as the process
 * exits, so that it holds the functions this run compiled too. Code compiled this way cannot
 * run `import()` (Node 20 gives it no loader): the bundle must not need it.
 */
export function requireWithCompileCache(file: string, cacheDir: string | undefined, command = '-'): unknown {
  const require = createRequire(file);
  const cache = cacheDir === undefined ? undefined : cacheFileOf(file, cacheDir, command);
  const cachedData = cache && readCache(path.join(cache.dir, cache.name));
  const script = new vm.Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, ...(cachedData && { cachedData }) });
  const module = new Module(file);
  module.filename = file;
  require.cache[file] = module;
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, require, module, file, path.dirname(file));
  module.loaded = true;
  if (cache && (!cachedData || script.cachedDataRejected)) process.once('exit', () => storeCache(cache, script.createCachedData()));
  return module.exports;
}
