import { rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcessHarness, dataOf, node, script } from './harness.js';
import { defaultProcessTimeoutMs } from '../../../src/tools/process/launch-options.js';

interface CompletionData {
  exit_code: number | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timed_out: boolean;
}

let harness: ProcessHarness;
beforeEach(async () => {
  harness = await ProcessHarness.create();
});
afterEach(async () => {
  await harness.dispose();
});

describe('exec', () => {
  it('passes argv with spaces, quotes, $() and ; to the child literally', async () => {
    const tricky = ['a b', '"quoted"', "it's", '$(touch pwned)', 'x; rm -rf /', '`id`', '*', '$HOME', ''];
    const result = await harness.invoke('exec', { command: node, args: [script('print-argv.mjs'), ...tricky] });
    const data = dataOf<CompletionData>(result);
    expect(JSON.parse(data.stdout)).toEqual(tricky);
    expect(data).toMatchObject({ exit_code: 0, truncated: false, timed_out: false });
  });

  it('closes stdin unless stdin is given', async () => {
    const closed = dataOf<CompletionData>(await harness.invoke('exec', { command: node, args: [script('read-stdin.mjs')] }));
    expect(JSON.parse(closed.stdout)).toEqual({ bytes: 0, text: '' });
    const given = dataOf<CompletionData>(await harness.invoke('exec', { command: node, args: [script('read-stdin.mjs')], stdin: 'héllo\n' }));
    expect(JSON.parse(given.stdout)).toEqual({ bytes: 7, text: 'héllo\n' });
  });

  it('fails on an exit code outside ok_exit_codes, naming the code; its stderr is in the details, not repeated in the message', async () => {
    const result = await harness.invoke('exec', { command: node, args: [script('exit-with.mjs'), '3'] });
    expect(result.status).toBe('failure');
    expect(result.error?.kind).toBe('execution_failed');
    expect(result.error?.message).toMatch(/exited with code 3 \(expected 0\)$/);
    expect(result.error?.message).not.toContain('problem');
    expect(result.error?.details).toMatchObject({ exit_code: 3, timed_out: false });
    expect(result.error?.details['stderr']).toContain('problem 8');

    const accepted = await harness.invoke('exec', { command: node, args: [script('exit-with.mjs'), '3'], ok_exit_codes: [0, 3] });
    expect(dataOf<CompletionData>(accepted).exit_code).toBe(3);
  });

  it('finds a program on the host PATH and records the resolved path in the request', async () => {
    const prepared = await harness.host.preview({ id: 'p', tool: 'exec', args: { command: 'node', args: ['--version'] } }, new AbortController().signal);
    if (!('requests' in prepared)) throw prepared;
    const request = prepared.requests[0]!;
    expect(request).toMatchObject({
      class: 'process',
      invocation: 'direct',
      cwd: harness.root,
      argv: ['--version'],
      envMode: { mode: 'inherit' },
      env: {},
      outputLimitBytes: 1024 * 1024,
      wallLimitMs: defaultProcessTimeoutMs,
    });
    if (request.class !== 'process') throw new Error('expected a process request');
    expect(request.executable.lookup).toBe('path_search');
    expect(request.executable.resolved.endsWith('/node')).toBe(true);
    expect(prepared.resources).toEqual([{ mode: 'shared', resource: { kind: 'tree', path: harness.root } }]);
  });

  it('keeps argv out of the debug form of its request', async () => {
    const prepared = await harness.host.preview({ id: 'p', tool: 'exec', args: { command: node, args: ['--token=hunter2-secret'] } }, new AbortController().signal);
    if (!('requests' in prepared)) throw prepared;
    const request = prepared.requests[0]!;
    expect(inspect(request)).not.toContain('hunter2');
    expect(inspect(request)).toContain('redacted');
    expect(JSON.stringify(request)).not.toContain('hunter2');
    // The facts stay readable by name, for a display that means to show the command.
    expect(request.class === 'process' && request.argv).toEqual(['--token=hunter2-secret']);
  });

  it('refuses a cwd outside the workspace or that is not a directory', async () => {
    const outside = await harness.invoke('exec', { command: node, args: ['-e', ''], cwd: '/tmp' });
    expect(outside.error?.kind).toBe('path_refused');
    const file = await harness.invoke('exec', { command: node, args: ['-e', "require('fs').writeFileSync('f', '')"] });
    expect(file.status).toBe('success');
    const notDirectory = await harness.invoke('exec', { command: node, args: ['-e', ''], cwd: 'f' });
    expect(notDirectory.error?.kind).toBe('invalid_arguments');
    expect(notDirectory.error?.message).toContain('not a directory');
  });

  it('streams complete output lines as progress, stdout and stderr apart', async () => {
    await harness.invoke('exec', { command: node, args: [script('print-lines.mjs'), '3'] });
    const progress = harness.events.flatMap((event) => (event.type === 'step_progress' ? [{ message: event.message, stream: event.stream }] : []));
    expect(progress.filter((update) => update.stream === 'stdout').flatMap((update) => update.message.split('\n'))).toEqual(['line 1', 'line 2', 'line 3']);
    expect(progress).toContainEqual({ message: 'warning once', stream: 'stderr' });
  });

  it('passes every line on as progress, in order, while the result keeps the whole output', async () => {
    const result = await harness.invoke('exec', { command: node, args: [script('print-lines.mjs'), '2000'] });
    const data = dataOf<CompletionData>(result);
    expect(data.stdout.split('\n')).toHaveLength(2001);
    const progress = harness.events.filter((event) => event.type === 'step_progress' && event.stream === 'stdout');
    const lines = progress.flatMap((event) => (event.type === 'step_progress' ? event.message.split('\n') : []));
    expect(lines).toEqual(Array.from({ length: 2000 }, (_, i) => `line ${i + 1}`));
    expect(harness.events.filter((event) => event.type === 'step_progress' && event.stream === 'stderr')).toMatchObject([{ message: 'warning once' }]);
  });

  it('fails with execution_failed when the program vanished between preparation and execution', async () => {
    // The program vanishes while the call is authorized (a gate runs), after it was prepared.
    const vanishing = await ProcessHarness.create({
      gates: [{ name: 'remover', evaluate: async () => (rmSync(path.join(vanishing.root, 'tool.sh')), { decision: 'continue' }) }],
    });
    try {
      await writeFile(path.join(vanishing.root, 'tool.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
      const call = { id: 'v', tool: 'exec', args: { command: './tool.sh' } };
      const prepared = await vanishing.host.preview(call, new AbortController().signal);
      if (!('requests' in prepared)) throw prepared;
      expect(prepared.requests[0]).toMatchObject({ executable: { requested: './tool.sh', resolved: path.join(vanishing.root, 'tool.sh'), lookup: 'exact' } });
      const result = await vanishing.host.invoke(call);
      expect(result.error?.kind).toBe('execution_failed');
      expect(result.error?.message).toContain('could not start');
    } finally {
      await vanishing.dispose();
    }
  });

  it('reports a missing program before anything runs', async () => {
    const result = await harness.invoke('exec', { command: 'no-such-program-rho' });
    expect(result.error?.kind).toBe('not_found');
    expect(result.error?.message).toContain('not found on PATH');
  });
});
