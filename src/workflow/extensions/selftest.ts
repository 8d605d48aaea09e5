import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Tool } from '../../host/tool.js';
import { formatMs } from '../../host/format-ms.js';
import { ToolError } from '../../host/errors.js';

export type SelftestStatus = 'passed' | 'failed' | 'none';

export interface SelftestResult {
  tool: string;
  status: SelftestStatus;
  /** Why it failed. */
  message?: string;
  durationMs: number;
}

/** Runs one selftest in its own temp dir (removed afterwards), bounded by the tool's timeout. */
async function runSelftest(tool: Tool, selftest: (tempDir: string) => Promise<void>): Promise<SelftestResult> {
  const started = performance.now();
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'rho-selftest-'));
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ToolError('timeout', `did not finish within ${formatMs(tool.timeoutMs)}`)), tool.timeoutMs);
  });
  try {
    await Promise.race([selftest.call(tool, tempDir), expired]);
    return { tool: tool.name, status: 'passed', durationMs: performance.now() - started };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { tool: tool.name, status: 'failed', message, durationMs: performance.now() - started };
  } finally {
    clearTimeout(timer);
    await rm(tempDir, { recursive: true, force: true });
  }
}

/** Runs each tool's optional `selftest(tempDir)` in turn; a tool without one is reported as `none`. */
export async function runSelftests(tools: readonly Tool[]): Promise<SelftestResult[]> {
  const results: SelftestResult[] = [];
  for (const tool of tools) {
    const selftest = tool.selftest;
    results.push(selftest ? await runSelftest(tool, selftest) : { tool: tool.name, status: 'none', durationMs: 0 });
  }
  return results;
}
