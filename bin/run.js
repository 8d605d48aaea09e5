#!/usr/bin/env node
// `rho --version` is answered before oclif loads: loading it costs more than twice Node's own start.
// The line matches oclif's user agent (name/version platform-arch node-version).
if (process.argv[2] === '--version') {
  const { readFileSync } = await import('node:fs');
  const { name, version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const arch = process.arch === 'ia32' ? 'x86' : process.arch;
  process.stdout.write(`${name}/${version} ${process.platform}-${arch} node-${process.version}\n`);
} else {
  // Compiled code only: under NODE_ENV=development or test, oclif would otherwise look for a
  // tsconfig and register tsx on every start.
  globalThis.oclif = { ...globalThis.oclif, enableAutoTranspile: false };
  // The bundled runtime path (scripts/bundle-cli.mjs), compiled from V8's code cache when there is one.
  const { fileURLToPath } = await import('node:url');
  const { commandOf, compileCacheDir, requireWithCompileCache } = await import('../dist/src/boot/compile-cache.js');
  const bundle = fileURLToPath(new URL('../dist/cli/rho.cjs', import.meta.url));
  const cli = requireWithCompileCache(bundle, compileCacheDir(process.env), commandOf(process.argv.slice(2)));
  // Code compiled from the cache cannot import(); tool modules are imported from here instead.
  cli.useModuleImporter((specifier) => import(specifier));
  await cli.execute(import.meta.url);
}
