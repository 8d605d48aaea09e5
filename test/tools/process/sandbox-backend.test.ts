import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolHost } from '../../../src/index.js';
import type { BackendProbeRequest, ConfinedStart, ConfinementBackend } from '../../../src/tools/process/sandbox/backend.js';

/**
 * A confinement backend that confines nothing, registered in place of the real ones: it proves
 * that probing, launching, feeding and stopping a confined process all go through
 * `ConfinementBackend`, and that nothing else in rho needs to know which backend runs. Its
 * program wraps the command in a shell that reads one line on descriptor 3 (what `attach` writes)
 * and hands it to the command as RHO_FAKE_WORD.
 */
const fake = (() => {
  const probes: BackendProbeRequest[] = [];
  const starts: ConfinedStart[] = [];
  const stopped: number[] = [];
  const backend: ConfinementBackend = {
    name: 'fake',
    platforms: [process.platform],
    settings: ['RHO_FAKE_SANDBOX'],
    relocationFix: 'move the fake sandbox elsewhere',
    async probe(request) {
      probes.push(request);
      const location = request.hostEnv['RHO_FAKE_SANDBOX'];
      return location ? { works: true, location } : { works: false, reason: 'RHO_FAKE_SANDBOX is not set', fix: 'set RHO_FAKE_SANDBOX' };
    },
    launch(start) {
      starts.push(start);
      return {
        file: '/bin/sh',
        args: ['-c', 'read -r word <&3; export RHO_FAKE_WORD="$word"; exec "$@"', 'fake-sandbox', start.command.file, ...start.command.args],
        env: start.command.env,
        extraStdio: ['pipe'],
        attach(child) {
          (child.stdio[3] as Writable).end('through-descriptor-3\n');
        },
        terminate: async (leader) => {
          stopped.push(leader);
          process.kill(-leader, 'SIGKILL');
        },
        exitStatus: (exitCode, signal) => ({ exitCode, signal }),
      };
    },
  };
  return { backend, probes, starts, stopped };
})();

const registry = '../../../src/tools/process/sandbox/backends.js';

// Test files share a worker's modules: rho is loaded afresh here, so that it sees the fake
// registry, and afresh again after, so that the files run next see the real one.
let builtinTools: typeof import('../../../src/index.js').builtinTools;
let createToolHost: typeof import('../../../src/index.js').createToolHost;
let probeSandbox: typeof import('../../../src/index.js').probeSandbox;
let distrustWritableProgram: typeof import('../../../src/tools/process/sandbox/probe.js').distrustWritableProgram;
let probeSettings: typeof import('../../../src/tools/process/sandbox/probe.js').probeSettings;
let probeTimeoutMs: number;
beforeAll(async () => {
  vi.resetModules();
  vi.doMock(registry, () => ({ confinementBackends: [fake.backend] }));
  ({ builtinTools, createToolHost, probeSandbox } = await import('../../../src/index.js'));
  ({ distrustWritableProgram, probeSettings, probeTimeoutMs } = await import('../../../src/tools/process/sandbox/probe.js'));
});
afterAll(() => {
  vi.doUnmock(registry);
  vi.resetModules();
});

let dir = '';
let host: ToolHost | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-sandbox-backend-')));
  fake.probes.length = 0;
  fake.starts.length = 0;
  fake.stopped.length = 0;
});
afterEach(async () => {
  await host?.dispose();
  host = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('a confinement backend, through the interface alone', () => {
  it('is probed with the host environment, the homes, no memory and the time it has to answer, and names itself and its program in the status', async () => {
    const status = await probeSandbox({ mode: 'required', hostEnv: { RHO_FAKE_SANDBOX: '/opt/fake/sandbox' }, homes: ['/home/someone'] });
    expect(status).toEqual({ confined: true, mode: 'required', backend: 'fake', location: '/opt/fake/sandbox' });
    expect(fake.probes).toEqual([{ hostEnv: { RHO_FAKE_SANDBOX: '/opt/fake/sandbox' }, homes: ['/home/someone'], memory: undefined, timeoutMs: probeTimeoutMs }]);
    expect(await probeSandbox({ mode: 'auto', hostEnv: {} })).toEqual({ confined: false, mode: 'auto', reason: 'RHO_FAKE_SANDBOX is not set', fix: 'set RHO_FAKE_SANDBOX' });
  });

  it('says what it needs on a system it does not run on, and is never probed there', async () => {
    const elsewhere = process.platform === 'aix' ? 'sunos' : 'aix';
    expect(await probeSandbox({ mode: 'auto', hostEnv: { RHO_FAKE_SANDBOX: '/opt/fake' }, platform: elsewhere })).toEqual({
      confined: false,
      mode: 'auto',
      reason: `the sandbox uses fake, which exists only on ${process.platform === 'linux' ? 'Linux' : process.platform}`,
    });
    expect(fake.probes).toEqual([]);
  });

  it('tells probes apart by the settings it reads, and by nothing else in the environment', () => {
    expect(probeSettings({ RHO_FAKE_SANDBOX: '/a', HOME: '/one' })).toBe(probeSettings({ RHO_FAKE_SANDBOX: '/a', HOME: '/two' }));
    expect(probeSettings({ RHO_FAKE_SANDBOX: '/a' })).not.toBe(probeSettings({ RHO_FAKE_SANDBOX: '/b' }));
  });

  it('is not trusted when its program lies where steps write, with its own fix', async () => {
    const status = await probeSandbox({ mode: 'auto', hostEnv: { RHO_FAKE_SANDBOX: path.join(dir, 'fake') } });
    expect(distrustWritableProgram(status, [dir])).toEqual({
      confined: false,
      mode: 'auto',
      reason: `fake at ${path.join(dir, 'fake')} lies where steps can write (the workspace or a granted root), so a step could replace it`,
      fix: 'move the fake sandbox elsewhere',
    });
  });

  /** A host whose processes the fake backend confines. */
  async function confinedHost(): Promise<ToolHost> {
    const sandbox = await probeSandbox({ mode: 'required', hostEnv: { RHO_FAKE_SANDBOX: '/opt/fake/sandbox' } });
    host = await createToolHost({
      workspace: dir,
      tools: builtinTools(),
      policy: { allow: ['process(sh)', 'write(out/**)'] },
      environment: { env: { PATH: process.env.PATH ?? '' }, secretNames: [], processEnv: { mode: 'inherit_only', names: ['PATH'] }, sandbox },
    });
    return host;
  }

  it('runs a confined exec step: the launch it builds is what starts, fed on its own descriptor, with the plan resolved just before', async () => {
    const confined = await confinedHost();
    // The limit only makes a launch that was never fed fail instead of waiting for its descriptor forever.
    const args = { command: 'sh', args: ['-c', 'echo "word: $RHO_FAKE_WORD"; echo "temp: $TMPDIR"'], timeout: 60 };
    const result = await confined.invoke({ id: 'confined', tool: 'exec', args });
    expect(result.error).toBeUndefined();
    expect(fake.starts).toHaveLength(1);
    const [start] = fake.starts;
    expect(start!.location).toBe('/opt/fake/sandbox');
    expect(start!.cwd).toBe(dir);
    expect(start!.command.args).toEqual(['-c', 'echo "word: $RHO_FAKE_WORD"; echo "temp: $TMPDIR"']);
    expect(start!.programs).toEqual([start!.command.file]);
    expect(start!.plan.writable.map((root) => root.path)).toEqual([path.join(dir, 'out')]);
    expect(start!.writeMounts).toContainEqual({ path: dir, writable: true, ifPresent: false });
    const temp = start!.plan.privateTemp;
    expect(start!.command.env['TMPDIR']).toBe(temp);
    expect(result.output?.text.trim().split('\n')).toEqual(['word: through-descriptor-3', `temp: ${temp ?? ''}`]);
  });

  it('stops a confined step through the backend when it runs past its limit', async () => {
    const confined = await confinedHost();
    const result = await confined.invoke({ id: 'slow', tool: 'exec', args: { command: 'sh', args: ['-c', 'sleep 60'], timeout: 0.2 } });
    expect(result.error).toMatchObject({ kind: 'timeout' });
    expect(fake.stopped).toHaveLength(1);
  });
});
