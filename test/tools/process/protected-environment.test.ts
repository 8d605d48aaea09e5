import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessHarness, dataOf, node } from './harness.js';

let harness: ProcessHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

async function harnessWith(allow: string[], processVariables?: Record<string, string>): Promise<ProcessHarness> {
  harness = await ProcessHarness.create({ allow, ...(processVariables && { processVariables }) });
  return harness;
}

/** A repository in the workspace, and the env that makes `git status` there run `touch MARKER`. */
function gitFsmonitorAttack(host: ProcessHarness): { marker: string; env: Record<string, string> } {
  execFileSync('git', ['init', '-q', host.root]);
  const marker = path.join(host.root, 'pwned');
  return { marker, env: { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: `touch ${marker}; echo` } };
}

/** Environment attacks: each turns a narrow rule into running code of the step's choosing. */
describe('environment variables that change what runs', () => {
  it('GIT_CONFIG_* cannot turn process(git status) into code execution', async () => {
    const host = await harnessWith(['process(git status)']);
    const { marker, env } = gitFsmonitorAttack(host);
    const result = await host.invoke('exec', { command: 'git', args: ['status'], env });
    expect(result.status).toBe('denied');
    expect(result.error?.message).toContain('GIT_CONFIG_COUNT, GIT_CONFIG_KEY_0, GIT_CONFIG_VALUE_0');
    expect(result.error?.message).toContain(`--allow 'process(GIT_CONFIG_COUNT=* GIT_CONFIG_KEY_0=* GIT_CONFIG_VALUE_0=* git status)'`);
    expect(existsSync(marker)).toBe(false);
  });

  it('the same git attack runs when a rule names the variables, which shows it is real', async () => {
    const host = await harnessWith(['process(GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=* git status)']);
    const { marker, env } = gitFsmonitorAttack(host);
    const result = await host.invoke('exec', { command: 'git', args: ['status'], env });
    expect(result.status).toBe('success');
    expect(existsSync(marker)).toBe(true);
  });

  it('NODE_OPTIONS=--require cannot load code under a process(node ...) rule', async () => {
    const host = await harnessWith([`process(${node} -e)`]);
    const marker = path.join(host.root, 'pwned');
    const preload = path.join(host.root, 'preload.cjs');
    await writeFile(preload, `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`);
    const result = await host.invoke('exec', { command: node, args: ['-e', '0'], env: { NODE_OPTIONS: `--require ${preload}` } });
    expect(result.status).toBe('denied');
    expect(result.error?.kind).toBe('policy_denied');
    expect(existsSync(marker)).toBe(false);
  });

  it('BASH_ENV and ENV cannot run a start-up file under a process(bash ...) rule', async () => {
    const host = await harnessWith(['process(bash -c true)', 'process(sh -c true)']);
    const marker = path.join(host.root, 'pwned');
    const startup = path.join(host.root, 'startup.sh');
    await writeFile(startup, `touch ${marker}\n`);
    for (const [command, name] of [
      ['bash', 'BASH_ENV'],
      ['sh', 'ENV'],
    ] as const) {
      const result = await host.invoke('exec', { command, args: ['-c', 'true'], env: { [name]: startup } });
      expect(result.status, name).toBe('denied');
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("the workflow's env: is checked like a step's own: it reaches every process step", async () => {
    const host = await harnessWith([`process(${node} -e)`], { NODE_OPTIONS: '--inspect', NODE_ENV: 'test' });
    const denied = await host.invoke('exec', { command: node, args: ['-e', '0'] });
    expect(denied.status).toBe('denied');
    expect(denied.error?.message).toContain("workflow's env:");
    await host.dispose();
    const allowed = await harnessWith([`process(${node} -e)`], { NODE_ENV: 'test' });
    const result = await allowed.invoke('exec', { command: node, args: ['-e', 'console.log(process.env.NODE_ENV)'] });
    expect(dataOf<{ stdout: string }>(result).stdout.trim()).toBe('test');
  });

  it('a granted value is the only one allowed', async () => {
    const host = await harnessWith([`process(NODE_OPTIONS=--max-old-space-size=64 ${node} -e)`]);
    const granted = await host.invoke('exec', { command: node, args: ['-e', 'console.log(process.env.NODE_OPTIONS)'], env: { NODE_OPTIONS: '--max-old-space-size=64' } });
    expect(dataOf<{ stdout: string }>(granted).stdout.trim()).toBe('--max-old-space-size=64');
    const other = await host.invoke('exec', { command: node, args: ['-e', '0'], env: { NODE_OPTIONS: '--max-old-space-size=65' } });
    expect(other.status).toBe('denied');
  });
});
