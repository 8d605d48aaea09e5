/**
 * Bundles the CLI's runtime path (after `tsc`) into dist/cli/: oclif, the commands and what they
 * load, as ES modules split at every dynamic import, so what a command loads lazily stays lazy.
 *
 * Why: Node 20 has no module compile cache, and resolving and compiling ~400 small modules of
 * rho and its dependencies cost `rho run` more than the work of a short workflow. One minified
 * graph is resolved once and compiled once per start. Figures: bench/README.md.
 */
import { build } from 'esbuild';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = path.join(root, 'dist', 'cli');
// Built beside the target and swapped in, so a CLI started during a rebuild never sees half a bundle.
const outdir = `${target}.${process.pid}.tmp`;

/**
 * zod's classic API re-exports every locale (≈ 60 % of its minified size); rho configures and
 * uses only English, which zod loads on its own, so the re-export resolves to English alone.
 */
const englishOnlyZodLocales = {
  name: 'english-only-zod-locales',
  setup(bundler) {
    bundler.onResolve({ filter: /\/locales\/index\.js$/ }, ({ importer, resolveDir }) =>
      importer.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`)
        ? { path: path.join(resolveDir, 'en-only'), namespace: 'zod-locales', pluginData: resolveDir }
        : undefined,
    );
    bundler.onLoad({ filter: /.*/, namespace: 'zod-locales' }, ({ pluginData }) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(pluginData, '..', 'locales', 'en.js'))};`,
      resolveDir: pluginData,
    }));
  },
};

/** bin/run.js's entry: oclif is CommonJS, so its named export is re-exported from an ES module. */
const oclifEntry = {
  name: 'oclif-entry',
  setup(bundler) {
    bundler.onResolve({ filter: /^rho:oclif$/ }, () => ({ path: 'oclif', namespace: 'rho' }));
    bundler.onLoad({ filter: /.*/, namespace: 'rho' }, () => ({ contents: "export { execute } from '@oclif/core';", resolveDir: root }));
  },
};

await build({
  absWorkingDir: root,
  entryPoints: { commands: 'dist/commands/index.js', oclif: 'rho:oclif' },
  outdir,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'linked',
  // tsx loads module tools at run time with a loader of its own; typescript is only oclif's
  // optional development path. Neither belongs in the runtime bundle.
  external: ['tsx', 'tsx/*', 'typescript'],
  // CommonJS dependencies (oclif, enquirer) call require(); ES module output has none of its own.
  banner: { js: "import { createRequire as __rhoCreateRequire } from 'node:module'; const require = __rhoCreateRequire(import.meta.url);" },
  plugins: [oclifEntry, englishOnlyZodLocales],
  logLevel: 'warning',
});
const previous = `${target}.${process.pid}.old`;
await rename(target, previous).catch((error) => {
  if (error.code !== 'ENOENT') throw error;
});
await rename(outdir, target);
await rm(previous, { recursive: true, force: true });
