import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, temporaryDirectories, writeFiles } from '../support/cli.js';
import { processesIn, waitUntilGone } from '../support/processes.js';
import { waitFor } from '../support/wait-for.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

describe('rho run --watch (end to end)', () => {
  it('runs again after a change, cancels a long run when a source changes (killing its process), ignores generated files, and exits 130 on Ctrl-C', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: watched
policy:
  allow: ["read(src/**)", "read(out/**)", "read(.rho/**)", "write(.rho/**)", "write(out/**)", "shell"]
steps:
  - id: build
    tool: shell
    with: { script: "mkdir -p out && cp src/input.txt out/copy.txt && echo \\"saw $(cat src/input.txt)\\"; if grep -q slow src/input.txt; then echo sleeping; sleep 60; fi" }
    sources: ["src/**"]
    generates: ["out/**"]
`,
      'src/input.txt': 'one\n',
    });
    const child = execa('node', [cliPath, 'run', 'flow.yml', '--watch', '--output', 'plain'], {
      cwd: dir,
      env: { CI: 'true', NO_COLOR: '1' },
      reject: false,
      stdin: 'ignore',
      all: true,
    });
    let output = '';
    child.all?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const has = (text: string) => async () => (output.includes(text) ? true : undefined);
    try {
      await waitFor(has('run 1 ended with exit 0'), 'the first run');
      expect(output).toContain('── rho watch: run 1 (first run)');
      expect(output).toContain('[build] saw one');

      // A generated file changing (out/**) or a file in .rho does not start a run.
      await writeFile(path.join(dir, 'out/copy.txt'), 'edited\n');
      await writeFile(path.join(dir, 'src/input.txt'), 'two\n');
      await waitFor(has('run 2 ended with exit 0'), 'the run after a change');
      expect(output).toContain('── rho watch: run 2 (src/input.txt changed)');
      expect(output).toContain('[build] saw two');
      expect(output).not.toContain('out/copy.txt changed');

      await writeFile(path.join(dir, 'src/input.txt'), 'slow\n');
      await waitFor(has('[build] sleeping'), 'the long run to start');
      // The long step's processes (its shell and sleep), whichever pid namespace they run in.
      const slow = processesIn(dir).filter((pid) => pid !== child.pid);
      expect(slow.length).toBeGreaterThan(0);
      await writeFile(path.join(dir, 'src/input.txt'), 'three\n');
      await waitFor(has('run 4 ended with exit 0'), 'the run that replaced the long one');
      expect(output).toMatch(/src\/input\.txt changed; stopping run 3[\s\S]*◌ {2}build {2}cancelled[\s\S]*run 4 \(src\/input\.txt changed\)[\s\S]*saw three/);
      for (const pid of slow) expect(await waitUntilGone(pid, 5_000)).toBe(true);

      child.kill('SIGINT');
      const result = await child;
      expect(result.exitCode).toBe(130);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
