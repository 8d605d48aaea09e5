import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookJsonSchemaText } from '../../src/hooks/json-schemas.js';
import { makeTempDir, repoRoot, runCli, writeFiles } from '../support/cli.js';

// Each CLI start is slow on a loaded machine: the hook behaviours are tested in-process
// (example-hooks.test.ts); this file checks the commands' own wiring with few starts.
const samples = path.join(repoRoot, 'workflows/hooks/samples');

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir('rho-hooks-cli-')));
afterEach(() => cleanup());

describe('rho hooks', () => {
  it('schema prints the envelope JSON Schema', async () => {
    const result = await runCli(['hooks', 'schema'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(hookJsonSchemaText('envelope').trimEnd());
  });

  it('test runs one hook program on a sample envelope and prints its decision', async () => {
    const result = await runCli(['hooks', 'test', path.join(repoRoot, 'workflows/hooks/block-rm-rf.mjs'), '--event', path.join(samples, 'rm-rf.json')], {
      cwd: dir,
    });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^decision: deny — rm -rf is not allowed here \(run rm -rf \.rho\/hooks-demo\); .* \(\d+ ms\)$/);
  });

  it('test --json returns the parsed result, and takes the program after --', async () => {
    const result = await runCli(
      ['hooks', 'test', '--json', '--event', path.join(samples, 'ls.json'), '--', process.execPath, path.join(repoRoot, 'test/fixtures/hooks/exit-with.mjs'), '3'],
      { cwd: dir },
    );
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      role: 'gate',
      decision: 'deny',
      reason: null,
      failure: 'the hook exited with code 3 (stderr: exiting with 3)',
    });
  });

  it('test exits 2 for an event file that is not an envelope', async () => {
    await writeFiles(dir, { 'bad.json': JSON.stringify({ schema_version: 1, kind: 'before_tool_use' }) });
    const result = await runCli(['hooks', 'test', 'node', '--event', 'bad.json'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/bad\.json is not a hook envelope/);
  });
});
