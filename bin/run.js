#!/usr/bin/env node
// `rho --version` is answered before oclif loads: loading it costs more than twice Node's own start.
// The line matches oclif's user agent (name/version platform-arch node-version).
if (process.argv[2] === '--version') {
  const { readFileSync } = await import('node:fs');
  const { name, version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const arch = process.arch === 'ia32' ? 'x86' : process.arch;
  process.stdout.write(`${name}/${version} ${process.platform}-${arch} node-${process.version}\n`);
} else {
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}
