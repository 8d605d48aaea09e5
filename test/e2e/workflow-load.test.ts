import { afterAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

describe('loading a workflow file', () => {
  it('prints nothing of yaml’s own token log when LOG_TOKENS is set', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'one.yml': 'version: 1\nname: one\nsteps:\n  - id: s1\n    tool: echo\n    with: { value: hi }\n' });
    const result = await runCli(['run', 'one.yml', '--output', 'plain'], { cwd: dir, env: { LOG_TOKENS: '1' } });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('hi');
    expect(result.stdout.split('\n').filter((line) => line.startsWith('| '))).toEqual([]);
  });
});
