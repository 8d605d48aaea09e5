import { cp, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, temporaryDirectories } from '../support/cli.js';
import { codeBlocks, docPage } from '../support/docs.js';
import { fakeHome, homeEnvironment } from '../support/fake-home.js';

// workflows/rust.yml, run as a Rust developer runs it: cargo is rustup's proxy in ~/.cargo/bin
// (a stub with the real layout, test/support/fake-home.ts), every process confined, and the
// file names no home path. The project is a copy, so the repository's stays clean.
const example = path.join(repoRoot, 'workflows', 'rust.yml');
const temp = temporaryDirectories('rho-rust-example-');
afterAll(() => temp.removeAll());

let home = '';
let project = '';
let env: Record<string, string> = {};
beforeAll(async () => {
  const base = await realpath(await temp.make());
  home = await fakeHome(path.join(base, 'home'));
  project = path.join(base, 'project');
  await cp(path.join(repoRoot, 'workflows', 'rust-project'), project, { recursive: true });
  env = homeEnvironment(home);
});

/** The plan as docs/confinement.md shows it: this test's home and project where a reader's would be. */
function asInDocs(text: string): string {
  return text.replaceAll(project, '/home/me/src/rho/workflows/rust-project').replaceAll(home, '/home/me');
}

/** The text block of docs/confinement.md that starts with `first`. */
function confinementPageBlock(first: string): string {
  const block = codeBlocks(docPage('docs/confinement.md')).find((candidate) => candidate.lang === 'text' && candidate.body.startsWith(first));
  expect(block, `docs/confinement.md has a text block starting with ${first}`).toBeDefined();
  return block!.body;
}

describe('the Rust example (end to end, confined)', () => {
  it('runs every task of ci confined: cargo from rustup under the home, its registry cache granted by name, writes only in target/', async () => {
    const result = await runCli(['run', example, 'ci', '-w', project, '--output', 'plain'], { cwd: project, env });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    for (const command of ['fmt --check', 'clippy --locked --all-targets -- --deny warnings', 'test --locked', 'build --locked --release']) {
      expect(result.stdout).toContain(`cargo 1.80.0 (stable-x86_64-unknown-linux-gnu): ${command}`);
    }
    expect(result.stdout).toContain('test tests::greets ... ok');
    expect(result.stdout).toContain('checked 1 file(s)');
    expect(result.stdout).not.toContain('cargo-registry-token');
    expect(await readFile(path.join(project, 'target/release/app'), 'utf8')).toBe('binary\n');
    expect(await readFile(path.join(home, '.cargo/registry/cache/serde-1.0.crate'), 'utf8')).toBe('crate\n');
  });

  it('plans what docs/confinement.md shows', async () => {
    const plan = await runCli(['plan', example, 'test', '-w', project], { cwd: project, env });
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(`${asInDocs(plan.stdout).trimEnd()}\n`).toBe(confinementPageBlock('Plan for rust'));
  });
});
