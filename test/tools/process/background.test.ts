import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResourceAccess } from '../../../src/host/resources.js';
import { ProcessHarness, dataOf, isAlive, node, script, waitUntilGone } from './harness.js';

interface Started {
  process_id: string;
  pid: number;
}
interface Output {
  process_id: string;
  state: string;
  exit_code: number | null;
  content: string;
  offset: number;
  next_offset: number;
  dropped_bytes: number;
  matched?: boolean;
}

let harness: ProcessHarness;
beforeEach(async () => {
  harness = await ProcessHarness.create();
});
afterEach(async () => {
  await harness.dispose();
});

describe('background processes', () => {
  it('start, read output from an offset, and stop', async () => {
    const started = dataOf<Started>(await harness.invoke('process_start', { command: node, args: [script('forever.mjs')], name: 'server' }));
    expect(started.process_id).toBe('server');
    expect(isAlive(started.pid)).toBe(true);

    const ready = dataOf<Output>(await harness.invoke('process_output', { process_id: 'server', wait_for: 'ready' }));
    expect(ready).toMatchObject({ state: 'running', content: 'ready\n', offset: 0, next_offset: 6, matched: true });
    const after = dataOf<Output>(await harness.invoke('process_output', { process_id: 'server', offset: ready.next_offset }));
    expect(after).toMatchObject({ content: '', offset: 6 });

    const stopped = dataOf<{ state: string; was_running: boolean }>(await harness.invoke('process_stop', { process_id: 'server' }));
    expect(stopped).toMatchObject({ state: 'stopped', was_running: true });
    expect(isAlive(started.pid)).toBe(false);
    const again = dataOf<{ state: string; was_running: boolean }>(await harness.invoke('process_stop', { process_id: 'server' }));
    expect(again).toMatchObject({ state: 'stopped', was_running: false });
  });

  it('keep the output of a process that exited by itself', async () => {
    const { process_id } = dataOf<Started>(await harness.invoke('process_start', { command: node, args: [script('print-lines.mjs'), '2'] }));
    expect(process_id).toMatch(/^proc-\d+$/);
    const output = dataOf<Output>(await harness.invoke('process_output', { process_id, wait_for: 'never printed' }));
    expect(output).toMatchObject({ state: 'exited', exit_code: 0, content: 'line 1\nline 2\n', matched: false });
    const stderr = dataOf<Output>(await harness.invoke('process_output', { process_id, stream: 'stderr' }));
    expect(stderr.content).toBe('warning once\n');
  });

  it('are stopped and reported when the run ends, grandchildren included', async () => {
    const forever = dataOf<Started>(await harness.invoke('process_start', { command: node, args: [script('forever.mjs')], name: 'web' }));
    const tree = dataOf<Started>(await harness.invoke('process_start', { command: node, args: [script('fork-grandchild.mjs')], name: 'tree' }));
    const line = dataOf<Output>(await harness.invoke('process_output', { process_id: 'tree', wait_for: 'grandchild' }));
    const grandchild = Number(/grandchild (\d+)/.exec(line.content)?.[1]);

    const notices = await harness.host.dispose();
    expect(notices).toHaveLength(2);
    expect(notices.join('\n')).toMatch(/background process web \(.*forever\.mjs\) was still running when the run ended; it was stopped/);
    expect(notices.join('\n')).toContain('background process tree');
    for (const pid of [forever.pid, tree.pid, grandchild]) expect(await waitUntilGone(pid, 1000)).toBe(true);
  });

  async function resourcesOf(tool: string, args: unknown): Promise<readonly ResourceAccess[]> {
    const prepared = await harness.host.preview({ id: tool, tool, args }, new AbortController().signal);
    if (!('resources' in prepared) || !prepared.resources) throw new Error(`${tool} did not declare resources`);
    return prepared.resources;
  }

  it('declare the process id as their scheduler resource', async () => {
    const start = await resourcesOf('process_start', { command: node, name: 'db' });
    expect(start).toContainEqual({ mode: 'exclusive', resource: { kind: 'process', id: 'db' } });
    expect(start).toContainEqual({ mode: 'shared', resource: { kind: 'tree', path: harness.root } });
    expect(await resourcesOf('process_output', { process_id: 'db' })).toEqual([{ mode: 'shared', resource: { kind: 'process', id: 'db' } }]);
    expect(await resourcesOf('process_stop', { process_id: 'db' })).toEqual([{ mode: 'exclusive', resource: { kind: 'process', id: 'db' } }]);
  });

  it('give distinct generated ids to calls prepared together', async () => {
    const declared = await Promise.all([1, 2, 3].map(() => resourcesOf('process_start', { command: node })));
    const ids = declared.map((resources) => resources.flatMap((access) => (access.resource.kind === 'process' ? [access.resource.id] : []))[0]);
    expect(new Set(ids).size).toBe(3);
  });

  it('refuse a second running process with the same name, and an unknown id', async () => {
    await harness.invoke('process_start', { command: node, args: [script('forever.mjs')], name: 'one' });
    const duplicate = await harness.invoke('process_start', { command: node, args: [script('forever.mjs')], name: 'one' });
    expect(duplicate.error?.kind).toBe('conflict');
    const unknown = await harness.invoke('process_output', { process_id: 'nope' });
    expect(unknown.error?.kind).toBe('not_found');
    expect(unknown.error?.message).toContain('known: one');
  });

  it('end at their lifetime limit', async () => {
    const started = dataOf<Started>(await harness.invoke('process_start', { command: node, args: [script('forever.mjs')], timeout: 0.5 }));
    const output = dataOf<Output>(await harness.invoke('process_output', { process_id: started.process_id, wait_for: 'never printed' }));
    expect(output.state).toBe('timed_out');
    expect(isAlive(started.pid)).toBe(false);
  });
});
