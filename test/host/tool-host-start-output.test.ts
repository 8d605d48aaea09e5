import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Policy } from '../../src/host/policy.js';
import { maxQueuedOutput, maxQueuedProgress } from '../../src/host/progress-queue.js';
import { ToolRegistry } from '../../src/host/registry.js';
import { defineTool } from '../../src/host/tool.js';
import { ToolHost } from '../../src/host/tool-host.js';
import type { ToolHostRunEvent } from '../../src/host/tool-host-run.js';
import { Workspace } from '../../src/host/workspace.js';

const lines = 2 * maxQueuedProgress;

/** Prints `lines` lines, one output event each, waiting for room whenever the host asks it to. */
function printer(progress: { written: number; waits: number }) {
  return defineTool({
    name: 'printer',
    description: 'prints many lines',
    schema: z.strictObject({}),
    async run(_args, ctx) {
      for (let index = 0; index < lines; index++) {
        ctx.output('stdout', Buffer.from(`line ${index}\n`));
        progress.written += 1;
        const room = ctx.outputRoom?.();
        if (room !== undefined) {
          progress.waits += 1;
          await room;
        }
      }
      return { text: 'printed' };
    },
  });
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function startPrinting(limitBytes: number | undefined) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rho-start-output-'));
  dirs.push(dir);
  const progress = { written: 0, waits: 0 };
  const host = new ToolHost({
    workspace: await Workspace.create(dir),
    policy: new Policy(),
    tools: new ToolRegistry([printer(progress)]),
    environment: { env: {}, secretNames: [], processEnv: { mode: 'empty' } },
    ...(limitBytes !== undefined && { output: { limitBytes } }),
  });
  const run = host.start({ id: 'print-1', tool: 'printer', args: {} });
  // The reader starts late: everything printed meanwhile waits in the run's queue.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const writtenBeforeReading = progress.written;
  const events: ToolHostRunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  const printed = events.flatMap((event) => (event.type === 'step_progress' ? event.message.split('\n') : []));
  return { progress, writtenBeforeReading, printed, result: await run.result };
}

describe('a started call whose reader is behind on its output', () => {
  it('waits for the reader when every byte is asked for, and the reader gets every line', async () => {
    const { progress, writtenBeforeReading, printed, result } = await startPrinting(Infinity);
    expect(result.status).toBe('success');
    expect(writtenBeforeReading).toBeLessThanOrEqual(maxQueuedOutput + 1);
    expect(progress.waits).toBeGreaterThan(0);
    expect(printed).toEqual(Array.from({ length: lines }, (_, index) => `line ${index}`));
  });

  it('with a bound, never waits, and drops what is past the queue’s bound with a notice', async () => {
    const { progress, writtenBeforeReading, printed } = await startPrinting(undefined);
    expect(progress.waits).toBe(0);
    expect(writtenBeforeReading).toBe(lines);
    expect(printed).toHaveLength(maxQueuedProgress + 1);
    expect(printed.at(-1)).toBe(`(${lines - maxQueuedProgress} progress messages were dropped while the reader was behind)`);
  });
});
