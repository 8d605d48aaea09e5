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
  // The bundled runtime path (scripts/bundle-cli.mjs): one graph to load instead of hundreds of modules.
  const { execute } = await import('../dist/cli/oclif.js');
  await execute({ dir: import.meta.url });
}
