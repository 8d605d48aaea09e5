import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type Options } from 'execa';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const cliPath = path.join(repoRoot, 'bin', 'run.cjs');

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI as a user would (no TTY, CI=true unless overridden), on this Node: a PATH
 * the test gives the CLI cannot change which Node runs it.
 */
export async function runCli(args: readonly string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number } & Pick<Options, 'input'>): Promise<CliResult> {
  const result = await execa(process.execPath, [cliPath, ...args], {
    cwd: options.cwd,
    env: { CI: 'true', NO_COLOR: '1', ...options.env },
    reject: false,
    timeout: options.timeoutMs ?? 30_000,
    ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' }),
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** A temporary directory removed by the returned cleanup function. */
export async function makeTempDir(prefix = 'rho-test-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes files (relative path → content) under a directory. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(dir, relative);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

/** Temporary directories for tests that run concurrently; `removeAll()` (in afterAll) removes every one. */
export function temporaryDirectories(prefix = 'rho-test-'): { make(): Promise<string>; removeAll(): Promise<void> } {
  const cleanups: (() => Promise<void>)[] = [];
  return {
    async make() {
      const { dir, cleanup } = await makeTempDir(prefix);
      cleanups.push(cleanup);
      return dir;
    },
    async removeAll() {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    },
  };
}
