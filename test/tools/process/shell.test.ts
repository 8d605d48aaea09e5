import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { CapabilityRequest } from '../../../src/host/capability.js';
import { parseRule, ruleMatches } from '../../../src/host/rules.js';
import { ProcessHarness, dataOf } from './harness.js';

let harness: ProcessHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

async function shellRequestFor(script: string): Promise<CapabilityRequest> {
  harness = await ProcessHarness.create();
  const prepared = await harness.host.preview({ id: 'p', tool: 'shell', args: { script } }, new AbortController().signal);
  if (!('requests' in prepared)) throw prepared;
  return prepared.requests[0]!;
}

describe('shell', () => {
  it('runs a script with sh -c and reports its output', async () => {
    harness = await ProcessHarness.create({ allow: ['shell'] });
    const result = await harness.invoke('shell', { script: 'echo "$((6 * 7))"; echo oops >&2' });
    expect(dataOf(result)).toMatchObject({ exit_code: 0, stdout: '42\n', stderr: 'oops\n', truncated: false, timed_out: false });
  });

  it('declares a shell request with the script kept apart from the shell arguments', async () => {
    const request = await shellRequestFor('npm test && echo done');
    expect(request).toMatchObject({ class: 'shell', invocation: 'shell', shell: 'sh', argv: ['-c'], script: 'npm test && echo done' });
    if (request.class !== 'shell') throw new Error('expected a shell request');
    expect(request.executable).toMatchObject({ requested: 'sh', lookup: 'path_search' });
  });

  it('keeps the script text out of the debug form of its request', async () => {
    const request = await shellRequestFor('curl -H "Authorization: hunter2" example.org');
    expect(inspect(request)).not.toContain('hunter2');
    expect(inspect(request)).toContain('characters redacted');
  });

  it('is never matched by a process rule: process(npm) and process do not grant a shell step', async () => {
    const request = await shellRequestFor('npm test');
    for (const rule of ['process(npm)', 'process(npm test)', 'process(sh)', 'process']) {
      expect(ruleMatches(parseRule(rule), request, harness!.root)).toBe(false);
    }
    expect(ruleMatches(parseRule('shell'), request, harness!.root)).toBe(true);
  });

  it('is denied under a policy that allows only processes', async () => {
    harness = await ProcessHarness.create({ allow: ['process(npm)', 'process(sh)', 'process'] });
    const result = await harness.invoke('shell', { script: 'npm test' });
    expect(result.status).toBe('denied');
    expect(result.error?.kind).toBe('policy_denied');
    expect(result.error?.message).toContain('shell');
  });

  it('runs bash when asked', async () => {
    harness = await ProcessHarness.create({ allow: ['shell'] });
    const result = await harness.invoke('shell', { script: 'echo "${BASH_VERSION:+bash}"', shell: 'bash' });
    expect(dataOf<{ stdout: string }>(result).stdout).toBe('bash\n');
  });
});
