import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { afterToolUseCapability, capabilitySummarySchema, summarizeCapability } from '../../src/host/hooks/capability-summary.js';
import { sampleNetworkRequest, sampleProcessRequest, sampleShellRequest } from '../../src/host/hooks/testing.js';
import { Workspace } from '../../src/host/workspace.js';

let root: string;
let workspace: Workspace;
beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-hooks-summary-')));
  workspace = await Workspace.create(root);
  await writeFile(path.join(root, 'notes.txt'), 'hello');
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('capability summaries', () => {
  it('carry paths as the policy saw them', async () => {
    const read = summarizeCapability({ class: 'read', path: await workspace.resolveForRead('notes.txt'), target: 'file' });
    expect(read).toEqual({
      class: 'read',
      description: 'read file notes.txt',
      rule: 'read(notes.txt)',
      path: path.join(root, 'notes.txt'),
      requested: 'notes.txt',
      scope: 'workspace',
      target: 'file',
    });
    const write = summarizeCapability({ class: 'write', path: await workspace.resolveForWrite('out/new.txt') });
    expect(write).toMatchObject({ class: 'write', path: path.join(root, 'out/new.txt'), requested: 'out/new.txt', state: 'missing' });
  });

  it('carry process argv, cwd and env names, and shell script text', () => {
    const process = summarizeCapability(sampleProcessRequest({ argv: ['-rf', 'build'], env: { NODE_ENV: '1' }, envMode: { mode: 'inherit_except', names: ['HOME'] } }));
    expect(process).toMatchObject({
      class: 'process',
      invocation: 'direct',
      executable: { requested: 'ls', resolved: '/usr/bin/ls', lookup: 'path_search' },
      argv: ['-rf', 'build'],
      cwd: '/workspace',
      env_mode: { mode: 'inherit_except', names: ['HOME'] },
      env_names: ['NODE_ENV'],
    });
    expect(summarizeCapability(sampleShellRequest('rm -rf dist && make'))).toMatchObject({ class: 'shell', shell: 'sh', script: 'rm -rf dist && make' });
  });

  it('drop user info, query strings and fragments from URLs', () => {
    const summary = summarizeCapability(sampleNetworkRequest('https://me:pw@api.example.org:8443/v1/items?key=abc#frag', 'POST'));
    expect(summary).toMatchObject({ class: 'network', method: 'POST', url: 'https://api.example.org:8443/v1/items', description: 'POST https://api.example.org:8443/v1/items' });
    expect(JSON.stringify(summary)).not.toMatch(/pw|key=abc|frag/);
  });

  it('match the published schema', () => {
    for (const request of [sampleProcessRequest(), sampleShellRequest('ls'), sampleNetworkRequest('http://127.0.0.1:9/x')]) {
      expect(capabilitySummarySchema.safeParse(summarizeCapability(request)).success).toBe(true);
    }
  });
});

describe('the after_tool_use capability', () => {
  it('is the first request the call passed to authorization', () => {
    const first = sampleShellRequest('echo one');
    expect(afterToolUseCapability([first, sampleProcessRequest()], true)).toEqual(summarizeCapability(first));
  });

  it('is null when the call never authorized', () => {
    expect(afterToolUseCapability([sampleProcessRequest()], false)).toBeNull();
    expect(afterToolUseCapability([], true)).toBeNull();
  });
});
