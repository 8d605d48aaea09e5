import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { interruptReason } from '../../../src/host/tool-host.js';
import { ProcessHarness, node, script, waitUntilGone } from './harness.js';

let harness: ProcessHarness;
beforeEach(async () => {
  harness = await ProcessHarness.create();
});
afterEach(async () => {
  await harness.dispose();
});

interface TreePids {
  child: number;
  grandchild: number;
}

/** Records the pids fork-grandchild.mjs reports once both of its processes run. */
function watchTree(): { pids: Promise<TreePids>; seen: () => TreePids | undefined } {
  let seen: TreePids | undefined;
  const pids = new Promise<TreePids>((resolve) => {
    const unsubscribe = harness.host.subscribe((event) => {
      if (event.type !== 'step_progress') return;
      const match = /^child (\d+) grandchild (\d+)$/.exec(event.message);
      if (!match) return;
      unsubscribe();
      seen = { child: Number(match[1]), grandchild: Number(match[2]) };
      resolve(seen);
    });
  });
  return { pids, seen: () => seen };
}

function started(tree: ReturnType<typeof watchTree>): TreePids {
  const pids = tree.seen();
  if (!pids) throw new Error('fork-grandchild.mjs did not start its grandchild before the limit; the machine is too slow for this limit');
  return pids;
}

/** SIGTERM is ignored by both, so they go only when SIGKILL follows the grace period. */
const killWithinMs = 5000;

describe('process trees', () => {
  it('kills a grandchild that ignores SIGTERM when the step times out', async () => {
    const tree = watchTree();
    const result = await harness.invoke('exec', { command: node, args: [script('fork-grandchild.mjs')] }, { timeoutMs: 2500 });
    expect(result.status).toBe('failure');
    expect(result.error?.kind).toBe('timeout');
    const { child, grandchild } = started(tree);
    expect(await waitUntilGone(grandchild, killWithinMs)).toBe(true);
    expect(await waitUntilGone(child, killWithinMs)).toBe(true);
  });

  it('stops the process on its own timeout argument and reports timed_out', async () => {
    const result = await harness.invoke('exec', { command: node, args: [script('forever.mjs')], timeout: 0.5 });
    expect(result.error?.kind).toBe('timeout');
    expect(result.error?.message).toContain('did not finish within 500ms');
    expect(result.error?.details).toMatchObject({ timed_out: true, exit_code: null });
  });

  it('kills the tree when the call is interrupted, and records the call as interrupted', async () => {
    const controller = new AbortController();
    const tree = watchTree();
    void tree.pids.then(() => controller.abort(interruptReason));
    const result = await harness.invoke('exec', { command: node, args: [script('fork-grandchild.mjs')] }, { signal: controller.signal });
    expect(result.status).toBe('interrupted');
    expect(result.error?.kind).toBe('interrupted');
    const { child, grandchild } = await tree.pids;
    expect(await waitUntilGone(grandchild, killWithinMs)).toBe(true);
    expect(await waitUntilGone(child, killWithinMs)).toBe(true);
  });

  it('stops what a finished command left running in its group', async () => {
    const result = await harness.invoke('shell', { script: `${node} -e "setInterval(() => {}, 1000)" & echo $!` });
    expect(result.status).toBe('success');
    const leftover = Number(result.output?.text.trim());
    expect(leftover).toBeGreaterThan(0);
    expect(await waitUntilGone(leftover, killWithinMs)).toBe(true);
  });
});
