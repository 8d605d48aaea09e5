import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchEnv } from '../../bench/lib/environment.js';
import { writeScriptsRuns } from '../../bench/suites/scripts.js';

// The scripts suite's commands, each run once as hyperfine runs it (the built CLI), so the suite cannot rot.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rho-bench-scripts-'));
  // npm keeps its logs and cache under HOME, rho its compile cache: all inside the temp dir.
  await mkdir(path.join(dir, 'home'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bench scripts suite', () => {
  it('runs the same ten `sh -c true` scripts through run-s, and ten shell steps through rho in order', async () => {
    const runs = await writeScriptsRuns(dir);
    const run = (name: string) => {
      const { command } = runs.commands.find((candidate) => candidate.name === name)!;
      const result = spawnSync('bash', ['-c', command], { cwd: runs.dir, env: { ...benchEnv(), HOME: path.join(dir, 'home') }, encoding: 'utf8' });
      expect(result.status, `${command}\n${result.stdout}${result.stderr}`).toBe(0);
      return result.stdout;
    };
    const scripts = Array.from({ length: 10 }, (_, index) => `s${index + 1}`);
    const { scripts: written } = JSON.parse(await readFile(path.join(runs.dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(written).toEqual(Object.fromEntries(scripts.map((name) => [name, 'true'])));

    // npm prints `> NAME` and `> SCRIPT` before it runs each script.
    expect([...run(runs.names.runS).matchAll(/^> scripts-10@1\.0\.0 (\S+)$/gm)].map((match) => match[1])).toEqual(scripts);
    expect([...run(runs.names.npmRun).matchAll(/^> true$/gm)]).toHaveLength(1);
    const shellSteps = (output: string) => [...output.matchAll(/▶ (\S+) \(shell\)/g)].map((match) => match[1]);
    expect(shellSteps(run(runs.names.rhoTasks))).toEqual(scripts.map((name) => `${name}/${name}`));
    expect(shellSteps(run(runs.names.rhoDefault))).toEqual(scripts.map((name) => `${name}/${name}`));
    expect(shellSteps(run(runs.names.rhoSteps))).toEqual(scripts);
  });
});
