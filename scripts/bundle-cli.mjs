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
import { runtimeBundleOptions } from './runtime-bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = path.join(root, 'dist', 'cli');
// Built beside the target and swapped in, so a CLI started during a rebuild never sees half a bundle.
const outdir = `${target}.${process.pid}.tmp`;

/** bin/run.js's entry: oclif is CommonJS, so its named export is re-exported from an ES module. */
const oclifEntry = {
  name: 'oclif-entry',
  setup(bundler) {
    bundler.onResolve({ filter: /^rho:oclif$/ }, () => ({ path: 'oclif', namespace: 'rho' }));
    bundler.onLoad({ filter: /.*/, namespace: 'rho' }, () => ({ contents: "export { execute } from '@oclif/core';", resolveDir: root }));
  },
};

await build(
  runtimeBundleOptions(root, {
    entryPoints: { commands: 'dist/commands/index.js', oclif: 'rho:oclif' },
    outdir,
    chunkNames: 'chunks/[name]-[hash]',
    splitting: true,
    plugins: [oclifEntry],
  }),
);
const previous = `${target}.${process.pid}.old`;
await rename(target, previous).catch((error) => {
  if (error.code !== 'ENOENT') throw error;
});
await rename(outdir, target);
await rm(previous, { recursive: true, force: true });
