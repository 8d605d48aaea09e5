#!/usr/bin/env node
'use strict';
// CommonJS, like everything on the start path: an ES module entry makes Node start its ES module
// loader first, a few milliseconds of every start (bench/README.md).
//
// `rho --version` is answered before oclif loads: loading it costs more than twice Node's own start.
// The line matches oclif's user agent (name/version platform-arch node-version).
if (process.argv[2] === '--version') {
  const { name, version } = JSON.parse(require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'package.json'), 'utf8'));
  const arch = process.arch === 'ia32' ? 'x86' : process.arch;
  process.stdout.write(`${name}/${version} ${process.platform}-${arch} node-${process.version}\n`);
} else {
  // Compiled code only: under NODE_ENV=development or test, oclif would otherwise look for a
  // tsconfig and register tsx on every start.
  globalThis.oclif = { ...globalThis.oclif, enableAutoTranspile: false };
  // The bundled runtime path (scripts/bundle-cli.mjs), compiled from V8's code cache when there is one.
  const path = require('node:path');
  const { commandOf, compileCacheDir, requireWithCompileCache } = require('../dist/cli/compile-cache.cjs');
  const bundle = path.join(__dirname, '..', 'dist', 'cli', 'rho.cjs');
  const commands = require('../dist/cli/command-words.json');
  const cli = requireWithCompileCache(bundle, compileCacheDir(process.env), commandOf(process.argv.slice(2), commands));
  cli.execute(require('node:url').pathToFileURL(__filename).href);
}
