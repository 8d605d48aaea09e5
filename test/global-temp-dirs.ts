import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Fails the test run if a test left a temporary entry behind. Every temporary directory of this
 * run — tests', the CLI's, their children's — is made under one directory of its own (TMPDIR,
 * which the workers and every process they start inherit), so entries of another run on the same
 * machine are never mistaken for this run's; what is left there at the end is reported and removed.
 * rho's own state (its key, the up-to-date records) lives there too, so no test writes the user's.
 */
let root: string | undefined;

export function setup(): void {
  root = mkdtempSync(path.join(os.tmpdir(), 'rho-test-run-'));
  process.env.TMPDIR = root;
  // Step logs go to the user's state directory by default: this run's stay in its own.
  process.env.XDG_STATE_HOME = path.join(root, 'state');
}

export function teardown(): void {
  if (!root) return;
  // Tools' own caches (tsx keeps one in the temp directory) are not tests' leftovers.
  const left = readdirSync(root).filter((name) => name.startsWith('rho-'));
  rmSync(root, { recursive: true, force: true });
  if (left.length === 0) return;
  process.exitCode = 1;
  throw new Error(`tests left ${left.length} temporary entr${left.length === 1 ? 'y' : 'ies'} behind (now removed): ${left.join(', ')}`);
}
