/**
 * Bundles the CLI's runtime path (after `tsc`) into dist/cli/rho.cjs: oclif, the commands and
 * everything they load, in one minified CommonJS file that bin/run.cjs compiles with V8's code
 * cache (src/boot/compile-cache.ts). What a command loads lazily is still evaluated lazily.
 *
 * Why: Node 20 has no module compile cache, and resolving and compiling ~400 small modules of
 * rho and its dependencies cost `rho run` more than the work of a short workflow. Figures:
 * bench/README.md.
 */
import { build } from 'esbuild';
import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { oclifPatches } from './oclif-patches.mjs';
import { runtimeBundleOptions } from './runtime-bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = path.join(root, 'dist', 'cli');
// Built beside the target and swapped in, so a CLI started during a rebuild never sees half a bundle.
const outdir = `${target}.${process.pid}.tmp`;

/** What bin/run.cjs needs from the bundle; oclif requires the same file for COMMANDS (package.json). */
const entry = {
  name: 'cli-entry',
  setup(bundler) {
    bundler.onResolve({ filter: /^rho:cli$/ }, () => ({ path: 'cli', namespace: 'rho' }));
    bundler.onLoad({ filter: /.*/, namespace: 'rho' }, () => ({
      contents: [
        "import { COMMANDS } from './dist/commands/index.js';",
        "import { main } from './dist/src/cli/main.js';",
        'export { COMMANDS };',
        'export const execute = (dir) => main(dir, Object.keys(COMMANDS));',
      ].join('\n'),
      resolveDir: root,
    }));
  },
};

/**
 * Code compiled from V8's code cache cannot run `import()`, and tool modules are ES modules: the
 * module that imports them stays out of the bundle, as dist/cli/import-module.cjs, which Node
 * compiles itself when the first tool module is imported.
 */
const moduleImporter = {
  name: 'module-importer',
  setup(bundler) {
    bundler.onResolve({ filter: /^\.\/dynamic-import\.js$/ }, ({ importer }) =>
      importer.endsWith(`${path.sep}module-import.js`) ? { path: './import-module.cjs', external: true } : undefined,
    );
  },
};

/**
 * Large dependencies only some runs load (MCP servers, prompts, the terminal renderer) stay in
 * node_modules and are required from their CommonJS builds when first used: every byte of the
 * bundle is read and its cached code deserialized on every start.
 */
const loadedOnDemand = ['@modelcontextprotocol/sdk', 'enquirer', 'listr2', 'tar', 'undici'];

try {
  await build(
    runtimeBundleOptions(root, {
      entryPoints: { rho: 'rho:cli' },
      outdir,
      outExtension: { '.js': '.cjs' },
      external: loadedOnDemand,
      plugins: [entry, moduleImporter, oclifPatches],
    }),
  );
  // The first words of rho's commands (a file or a topic directory under commands/): the compile
  // cache keeps one file for each, and one for anything else typed (src/boot/compile-cache.ts).
  const commands = (await readdir(path.join(root, 'commands'), { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() || (entry.name.endsWith('.ts') && entry.name !== 'index.ts'))
    .map((entry) => entry.name.replace(/\.ts$/, ''));
  await writeFile(path.join(outdir, 'command-words.json'), `${JSON.stringify(commands.sort())}\n`);
  await build({
    absWorkingDir: root,
    entryPoints: ['dist/src/workflow/extensions/dynamic-import.js'],
    outfile: path.join(outdir, 'import-module.cjs'),
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  // The loader bin/run.cjs requires before the bundle: CommonJS too, so that no start needs Node's ES module loader.
  await build({
    absWorkingDir: root,
    entryPoints: ['dist/src/boot/compile-cache.js'],
    outfile: path.join(outdir, 'compile-cache.cjs'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
} catch (error) {
  await rm(outdir, { recursive: true, force: true });
  throw error;
}
const previous = `${target}.${process.pid}.old`;
await rename(target, previous).catch((error) => {
  if (error.code !== 'ENOENT') throw error;
});
await rename(outdir, target);
await rm(previous, { recursive: true, force: true });
