import { readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Fails the test run if a test left a temporary directory behind: every `rho-*` entry of the
 * temp directory that appeared during the run must be gone at its end (leftovers are removed).
 */
const prefix = /^rho-/;
let before = new Set<string>();

const entries = () => readdirSync(os.tmpdir()).filter((name) => prefix.test(name));

export function setup(): void {
  before = new Set(entries());
}

export function teardown(): void {
  const left = entries().filter((name) => !before.has(name));
  if (left.length === 0) return;
  for (const name of left) rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
  process.exitCode = 1;
  throw new Error(`tests left ${left.length} temporary entr${left.length === 1 ? 'y' : 'ies'} behind (now removed): ${left.join(', ')}`);
}
