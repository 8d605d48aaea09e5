import { describe, expect, it } from 'vitest';
import type { ProcessLaunch } from '../../../src/tools/process/process-group.js';
import { runToCompletion } from '../../../src/tools/process/run-to-completion.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const oneMiB = 1 << 20;

function nodeLaunch(source: string): ProcessLaunch {
  return { file: process.execPath, args: ['-e', source], cwd: process.cwd(), env, stdin: undefined };
}

describe('a process whose output has no room yet', () => {
  it('is not read until there is room, however long the wait', async () => {
    let received = 0;
    let allow: () => void = () => {};
    const room = new Promise<void>((resolve) => (allow = resolve));
    let asked = 0;
    const running = runToCompletion(
      nodeLaunch(`process.stdout.write('x'.repeat(${oneMiB}))`),
      { outputLimitBytes: 1024, wallLimitMs: 30_000 },
      {
        signal: new AbortController().signal,
        output: (_stream, chunk) => {
          received += chunk.length;
        },
        // No room until the test allows it; room at once after that.
        outputRoom: () => (++asked === 1 ? room : undefined),
      },
    );
    // Longer than a process group waits for its pipes after it exited (500 ms).
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(oneMiB);
    allow();
    const outcome = await running;
    expect(outcome.exitCode).toBe(0);
    expect(received).toBe(oneMiB);
  });

  it('is read as it comes when there is always room', async () => {
    let received = 0;
    const outcome = await runToCompletion(
      nodeLaunch(`process.stdout.write('x'.repeat(${oneMiB})); process.stderr.write('y'.repeat(${oneMiB}))`),
      { outputLimitBytes: 1024, wallLimitMs: 30_000 },
      {
        signal: new AbortController().signal,
        output: (_stream, chunk) => {
          received += chunk.length;
        },
        outputRoom: () => undefined,
      },
    );
    expect(outcome.exitCode).toBe(0);
    expect(received).toBe(2 * oneMiB);
  });
});
