import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEnv } from './environment.js';

const reporter = fileURLToPath(new URL('./report-peak-rss.mjs', import.meta.url));

/**
 * Runs `node <args…>` once and returns the process's peak RSS in MB (10⁶ bytes; its own, not its
 * children's). Output goes through a pipe that is read and dropped, as a log collector would.
 */
export async function peakRssMB(nodeArgs: readonly string[], options: { cwd: string; scratch: string }): Promise<number> {
  const file = path.join(options.scratch, `rss-${process.pid}-${Date.now()}.txt`);
  const child = spawn(process.execPath, ['--import', reporter, ...nodeArgs], {
    cwd: options.cwd,
    env: { ...benchEnv(), RHO_BENCH_RSS_FILE: file },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.resume();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`node ${nodeArgs.join(' ')} exited with ${code}:\n${stderr}`);
  try {
    return (Number(await readFile(file, 'utf8')) * 1024) / 1e6;
  } finally {
    await rm(file, { force: true });
  }
}
