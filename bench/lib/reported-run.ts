import { ToolError } from '../../src/host/errors.js';
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { benchEnv } from './environment.js';

/**
 * Runs `node --import <reporter> <args…>` once and returns what the reporter wrote to the file
 * named by `$<fileVariable>` as the process exited. Output goes through a pipe that is read and
 * dropped, as a log collector would.
 */
export async function reportedRun(reporter: string, fileVariable: string, nodeArgs: readonly string[], options: { cwd: string; scratch: string }): Promise<string> {
  const file = path.join(options.scratch, `report-${process.pid}-${Date.now()}.txt`);
  const child = spawn(process.execPath, ['--import', reporter, ...nodeArgs], {
    cwd: options.cwd,
    env: { ...benchEnv(), [fileVariable]: file },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.resume();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new ToolError('execution_failed', `node ${nodeArgs.join(' ')} exited with ${code}:\n${stderr}`);
  try {
    return await readFile(file, 'utf8');
  } finally {
    await rm(file, { force: true });
  }
}
