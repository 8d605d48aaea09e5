/**
 * Two lines of oclif that cost every start of the bundled CLI and do nothing it needs; the
 * bundle gets them rewritten. The build fails if oclif no longer has a line as written, so an
 * upgrade cannot drop a patch silently.
 */
import { readFile } from 'node:fs/promises';

const patches = [
  {
    // oclif sorts a plugin's commands with `localeCompare`, and the first `localeCompare` of a
    // process builds ICU's collator: 5–8 ms of every start. rho's help sorts commands again by
    // code unit, and rho's command ids sort alike both ways (test/commands/index.test.ts).
    file: /[\\/]@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/,
    from: '.sort((a, b) => a.id.localeCompare(b.id));',
    to: '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));',
  },
  {
    // oclif's entry checks the Node version against `engines` of the package.json beside its
    // own directory, loading semver first. In the bundle that directory is dist/, which has no
    // package.json: the check always threw and was ignored, after semver had loaded.
    file: /[\\/]@oclif[\\/]core[\\/]lib[\\/]index\.js$/,
    from: '\ncheckNodeVersion();\n',
    to: '\n',
  },
];

export const oclifPatches = {
  name: 'oclif-patches',
  setup(bundler) {
    for (const patch of patches) {
      bundler.onLoad({ filter: patch.file }, async ({ path }) => {
        const source = await readFile(path, 'utf8');
        if (source.split(patch.from).length !== 2) throw new Error(`${path}: expected one ${JSON.stringify(patch.from)} to replace (scripts/oclif-patches.mjs)`);
        return { contents: source.replace(patch.from, patch.to), loader: 'js' };
      });
    }
  },
};
