import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchEnv } from '../../bench/lib/environment.js';
import { toolchainCommands, writeToolchainRuns } from '../../bench/suites/toolchain.js';
import { probeSandbox } from '../../src/tools/process/sandbox/probe.js';

// The toolchain suite's commands, each run once as hyperfine runs it (the built CLI), so the suite cannot rot.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rho-bench-toolchain-'));
  await mkdir(path.join(dir, 'home'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bench toolchain suite', () => {
  it('runs the same sixteen stub commands through just and through rho, unconfined and confined', async () => {
    const runs = await writeToolchainRuns(dir);
    const run = (name: string) => {
      const { command } = runs.commands.find((candidate) => candidate.name === name)!;
      const result = spawnSync('bash', ['-c', command], { cwd: runs.dir, env: { ...benchEnv(), HOME: path.join(dir, 'home') }, encoding: 'utf8' });
      expect(result.status, `${command}\n${result.stdout}${result.stderr}`).toBe(0);
      return result.stdout;
    };
    expect(toolchainCommands).toHaveLength(16);
    const justfile = await readFile(path.join(runs.dir, 'justfile'), 'utf8');
    expect(justfile.split('\n').filter((line) => line.startsWith('    @stubs/'))).toHaveLength(16);
    run(runs.names.just);
    const steps = (output: string) => [...output.matchAll(/^\[\S+\] ✔ success/gm)].length;
    expect(steps(run(runs.names.rhoOff))).toBe(16);
    if ((await probeSandbox({ mode: 'required', hostEnv: process.env })).confined) expect(steps(run(runs.names.rhoConfined))).toBe(16);
  });
});
