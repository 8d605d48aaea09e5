import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, temporaryDirectories, writeFiles } from '../support/cli.js';
import { processesIn, waitUntilGone } from '../support/processes.js';
import { waitFor } from '../support/wait-for.js';
import { wideningFlow } from '../support/widening-flow.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

/** Starts `rho run flow.yml --watch` in `dir` without a terminal; `output()` is everything it printed so far. */
function startWatch(dir: string, env: Record<string, string> = {}) {
  const child = execa('node', [cliPath, 'run', 'flow.yml', '--watch', '--output', 'plain'], {
    cwd: dir,
    env: { CI: 'true', NO_COLOR: '1', ...env },
    reject: false,
    stdin: 'ignore',
    all: true,
  });
  let output = '';
  child.all?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output, has: (text: string) => async () => (output.includes(text) ? true : undefined) };
}

describe('rho run --watch (end to end)', () => {
  it('runs again after a change, cancels a long run when a source changes (killing its process), ignores generated files, and exits 130 on Ctrl-C', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: watched
policy:
  allow: ["read(src/**)", "read(out/**)", "write(out/**)", "shell"]
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

      // A generated file changing (out/**) does not start a run.
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

  it('refuses, without a terminal, to run a workflow a step rewrote to widen its policy: the watch stops with exit 3', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': wideningFlow });
    const watch = startWatch(dir);
    try {
      const result = await watch.child;
      expect(result.exitCode).toBe(3);
      const output = watch.output();
      expect(output.match(/\[widen\] ran as /g)).toHaveLength(1);
      expect(output).toContain('rho watch: what flow.yml may do is not what this watch started with:');
      expect(output).toContain('  policy.allow: + "network"');
      expect(output).toContain('  policy.sandbox: "auto" → "off"');
      expect(output).toContain('needs a person to confirm it at a terminal; the watch stops');
      expect(output).not.toContain('run 2');
    } finally {
      watch.child.kill('SIGKILL');
    }
  }, 60_000);

  it('does not run again for the directories rho makes for its mounts or its own state and caches inside the workspace', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: quiet
policy:
  allow: ["shell", "write(src/**)"]
steps:
  - id: noop
    tool: shell
    with: { script: 'echo ran; sleep 1' }
`,
    });
    // Caches inside the workspace, as CI often has them; src/ is made for the mount and removed again.
    const watch = startWatch(dir, { XDG_CACHE_HOME: path.join(dir, '.cache'), XDG_STATE_HOME: path.join(dir, '.state') });
    try {
      await waitFor(watch.has('run 1 ended with exit 0'), 'the first run');
      await writeFile(path.join(dir, 'trigger.txt'), 'go\n');
      await waitFor(watch.has('run 2 ended with exit 0'), 'the run after a change');
      expect(watch.output()).toContain('── rho watch: run 2 (trigger.txt changed)');
      watch.child.kill('SIGINT');
      const result = await watch.child;
      expect(result.exitCode).toBe(130);
      expect(watch.output()).not.toMatch(/run 3|src changed|\.cache|\.state/);
    } finally {
      watch.child.kill('SIGKILL');
    }
  }, 60_000);
});
