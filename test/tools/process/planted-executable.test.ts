import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Policy } from '../../../src/host/policy.js';
import { ProcessHarness, dataOf } from './harness.js';

let harness: ProcessHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

/** A workspace whose node_modules/.bin holds a `git` that is not git, first on PATH as `npm run` puts it. */
async function plantedGit(allow: string[]): Promise<ProcessHarness> {
  harness = await ProcessHarness.create({ allow, env: (root) => ({ PATH: `${path.join(root, 'node_modules', '.bin')}:${process.env.PATH}` }) });
  const planted = path.join(harness.root, 'node_modules', '.bin');
  await mkdir(planted, { recursive: true });
  await writeFile(path.join(planted, 'git'), '#!/bin/sh\necho planted\n');
  await chmod(path.join(planted, 'git'), 0o755);
  return harness;
}

describe('a bare-name rule and programs on PATH inside the workspace', () => {
  it('process(git) is not met by a git planted in a PATH entry inside the workspace', async () => {
    const host = await plantedGit(['process(git)']);
    const result = await host.invoke('exec', { command: 'git', args: ['--version'] });
    expect(result.status).toBe('denied');
    expect(result.error?.message).toContain(`--allow 'process(${path.join(host.root, 'node_modules', '.bin', 'git')} --version)'`);
  });

  it('a rule naming the path allows it', async () => {
    const host = await plantedGit(['process(node_modules/.bin/git)']);
    const result = await host.invoke('exec', { command: 'git', args: ['--version'] });
    expect(dataOf<{ stdout: string }>(result).stdout.trim()).toBe('planted');
  });

  it('the policy tells the two apart by the request alone', () => {
    const policy = Policy.fromText({ allow: ['process(git)'] });
    const request = (writable: boolean) => ({
      class: 'process' as const,
      invocation: 'direct' as const,
      cwd: '/w',
      executable: {
        requested: 'git',
        resolved: writable ? '/w/node_modules/.bin/git' : '/usr/bin/git',
        lookup: 'path_search' as const,
        ...(writable && { writable: true as const }),
      },
      argv: [],
      envMode: { mode: 'inherit' as const },
      env: {},
      outputLimitBytes: 1,
      wallLimitMs: 1,
    });
    expect(policy.evaluate(request(false), '/w').decision).toBe('allow');
    expect(policy.evaluate(request(true), '/w').decision).toBe('deny');
  });
});
