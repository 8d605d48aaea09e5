import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

const oneStep = 'version: 1\nname: one\nsteps:\n  - id: s1\n    tool: echo\n    with: { value: hi }\n';
const unknownInput = 'version: 1\nname: two\nsteps:\n  - id: s1\n    tool: echo\n    with: { value: hi }\n  - id: s2\n    tool: echo\n    with: { value: "${{ inputs.nope }}" }\n';

async function workspace(): Promise<{ dir: string; env: Record<string, string>; entries: () => Promise<string[]> }> {
  const dir = await directories.make();
  await writeFiles(dir, { 'one.yml': oneStep, 'two.yml': unknownInput });
  const cache = path.join(dir, 'cache');
  return { dir, env: { XDG_CACHE_HOME: cache }, entries: () => readdir(path.join(cache, 'rho', 'workflows')).catch(() => []) };
}

describe.concurrent('loading a workflow file', () => {
  it('prints nothing of yaml’s own token log when LOG_TOKENS is set', async () => {
    const { dir, env } = await workspace();
    const result = await runCli(['run', 'one.yml', '--output', 'plain'], { cwd: dir, env: { ...env, LOG_TOKENS: '1' } });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('hi');
    expect(result.stdout.split('\n').filter((line) => line.startsWith('| '))).toEqual([]);
  });

  it('reports the same problems at the same places when the parse comes from the cache', async () => {
    const { dir, env, entries } = await workspace();
    const first = await runCli(['validate', 'two.yml'], { cwd: dir, env });
    expect(first.exitCode).not.toBe(0);
    expect(`${first.stdout}${first.stderr}`).toContain('two.yml:9:');
    expect(await entries()).toHaveLength(1);
    const second = await runCli(['validate', 'two.yml'], { cwd: dir, env });
    expect({ ...second }).toEqual({ ...first });
    const runs = [await runCli(['run', 'one.yml', '--output', 'plain'], { cwd: dir, env }), await runCli(['run', 'one.yml', '--output', 'plain'], { cwd: dir, env })];
    expect(runs.map((run) => run.exitCode)).toEqual([0, 0]);
    expect(await entries()).toHaveLength(2);
  });

  it('keeps nothing with RHO_NO_WORKFLOW_CACHE=1', async () => {
    const { dir, env, entries } = await workspace();
    const result = await runCli(['run', 'one.yml', '--output', 'plain'], { cwd: dir, env: { ...env, RHO_NO_WORKFLOW_CACHE: '1' } });
    expect(result.exitCode).toBe(0);
    expect(await entries()).toEqual([]);
  });
});
