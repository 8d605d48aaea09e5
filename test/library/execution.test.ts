import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  HostError,
  Policy,
  ToolHost,
  ToolRegistry,
  Workspace,
  builtinTools,
  createHostInput,
  createToolHost,
  defineTool,
  exclusive,
  opaqueKey,
  shared,
  z,
  type ApprovalAnswer,
  type GateInput,
  type ResourceAccess,
  type SubmitOptions,
} from '../../src/index.js';
import { turns, workspacePerTest } from './support.js';

const space = workspacePerTest();
const live = () => new AbortController().signal;

/** Calls that run until the test lets them finish; each declares the accesses it is given. */
function holding() {
  const running: string[] = [];
  const release = new Map<string, () => void>();
  const wait = (name: string, signal: AbortSignal) =>
    new Promise<{ text: string }>((resolve) => {
      running.push(name);
      const done = () => {
        running.splice(running.indexOf(name), 1);
        resolve({ text: name });
      };
      release.set(name, done);
      signal.addEventListener('abort', done, { once: true });
    });
  const access = z.enum(['none', 'shared', 'exclusive']);
  const planned = defineTool({
    name: 'planned',
    description: 'declares its access to one key, then waits',
    schema: z.strictObject({ name: z.string(), access: access.default('none') }),
    executionPolicy: 'resource-aware',
    mode: 'async',
    prepare: (args) => {
      const key = opaqueKey('test', 'key');
      const resources: ResourceAccess[] = args.access === 'none' ? [] : [args.access === 'shared' ? shared(key) : exclusive(key)];
      return { requests: [], resources, execute: (ctx) => wait(args.name, ctx.signal) };
    },
  });
  const barrier = defineTool({ name: 'barrier', description: 'runs alone', schema: z.strictObject({ name: z.string() }), run: (args, ctx) => wait(args.name, ctx.signal) });
  return { tools: [planned, barrier], running, finish: (name: string) => release.get(name)?.() };
}

describe('preparation and parallel execution', () => {
  it('a tool that does not opt in runs alone: an exclusive call is a barrier in model order', async () => {
    const { tools, running, finish } = holding();
    const host = await space.host({ tools, maxParallel: 4 });
    const calls = [
      host.invoke({ id: 'a', tool: 'planned', args: { name: 'a' } }),
      host.invoke({ id: 'b', tool: 'barrier', args: { name: 'b' } }),
      host.invoke({ id: 'c', tool: 'planned', args: { name: 'c' } }),
    ];
    await turns();
    expect(running).toEqual(['a']);
    finish('a');
    await turns();
    expect(running).toEqual(['b']);
    finish('b');
    await turns();
    expect(running).toEqual(['c']);
    finish('c');
    expect((await Promise.all(calls)).map((result) => result.status)).toEqual(['success', 'success', 'success']);
  });

  it('a call is authorized before it takes a slot: one waiting for approval holds none', async () => {
    const { tools, running, finish } = holding();
    let answer: (value: ApprovalAnswer) => void = () => {};
    const asking = defineTool({
      name: 'asking',
      description: 'declares a network_tool request',
      schema: z.strictObject({}),
      executionPolicy: 'resource-aware',
      prepare: () => ({ requests: [{ class: 'network_tool', tool: 'asking' }], resources: [], execute: () => ({ text: 'asked' }) }),
    });
    const host = await space.host({ tools: [...tools, asking], maxParallel: 1, policy: { ask: ['network_tool'] }, approver: () => new Promise((resolve) => (answer = resolve)) });
    const waiting = host.invoke({ id: 'q', tool: 'asking', args: {} });
    const other = host.invoke({ id: 'o', tool: 'planned', args: { name: 'other' } });
    await turns();
    expect(running).toEqual(['other']);
    finish('other');
    expect((await other).status).toBe('success');
    answer('allow_once');
    expect((await waiting).status).toBe('success');
  });

  it('an executing call’s context has no way to authorize anything further', async () => {
    let keys: string[] = [];
    const probe = defineTool({
      name: 'probe',
      description: 'looks at its context',
      schema: z.strictObject({}),
      executionPolicy: 'resource-aware',
      prepare: () => ({ requests: [], resources: [], execute: (ctx) => ((keys = Object.keys(ctx)), { text: '' }) }),
    });
    await (await space.host({ tools: [probe] })).invoke({ id: 'p', tool: 'probe', args: {} });
    expect(keys).toEqual(expect.arrayContaining(['signal', 'progress', 'ask', 'workspace']));
    expect(keys).not.toContain('authorize');
  });

  it('maxParallel is a whole number of at least 1, said with the option’s name', async () => {
    const error = await createToolHost({ workspace: space.dir, tools: [], maxParallel: 0 }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(HostError);
    expect((error as Error).message).toBe('maxParallel must be a whole number of at least 1 (got 0)');
  });

  it('resource values are left out of debug and JSON output', async () => {
    const host = await space.host({ tools: builtinTools() });
    const preview = await host.preview({ id: 'p', tool: 'write_file', args: { path: 'private-name.txt', content: 'x' } }, live());
    if (!('resources' in preview) || !preview.resources) throw new Error('no resources');
    expect(inspect(preview.resources)).not.toContain('private-name');
    expect(JSON.stringify(preview.resources)).not.toContain('private-name');
  });
});

describe('async execution needs both keys', () => {
  const submit = (host: ToolHost, tool: string, args: unknown, options: Partial<SubmitOptions> = {}) =>
    host.reserve().submit({ id: `${tool}-${JSON.stringify(args)}`, tool, args }, { signal: live(), detached: true, ...options });

  it('a call detaches only when its tool declares async and its caller asks', async () => {
    const { tools, finish } = holding();
    const host = await space.host({ tools });
    const detached: string[] = [];
    const watching = submit(host, 'planned', { name: 'w', access: 'shared' }, { onDetached: () => detached.push('w') });
    await turns();
    expect(detached).toEqual(['w']);
    finish('w');
    expect((await watching).kind).toBe('result');
    const refused = await submit(host, 'barrier', { name: 'b' });
    if (refused.kind !== 'result') throw new Error('withdrawn');
    expect(refused.result.error?.kind).toBe('unsupported');
    expect(refused.result.error?.message).toContain('does not declare mode "async"');
  });

  it.each([
    ['the tool’s plan takes exclusive access', { name: 'x', access: 'exclusive' }, {}],
    ['the caller declares exclusive access in the plan’s place', { name: 'x', access: 'shared' }, { resources: [exclusive(opaqueKey('test', 'key'))] }],
  ])('fails a detached call when %s, without running it', async (_case, args, options) => {
    const { tools, running } = holding();
    const host = await space.host({ tools });
    const outcome = await submit(host, 'planned', args, options);
    if (outcome.kind !== 'result') throw new Error('withdrawn');
    expect(outcome.result.error?.message).toContain('a detached call may take shared access only');
    expect(outcome.result.error?.message).not.toContain('async: true');
    expect(running).toEqual([]);
  });

  it('shared resources the caller declares do not let an exclusive tool run detached', async () => {
    const { tools, running } = holding();
    const host = await space.host({ tools });
    const outcome = await submit(host, 'barrier', { name: 'b' }, { resources: [shared(opaqueKey('test', 'key'))] });
    if (outcome.kind !== 'result') throw new Error('withdrawn');
    expect(outcome.result.error?.kind).toBe('unsupported');
    expect(running).toEqual([]);
  });

  it('a detached call may not ask questions', async () => {
    const asker = defineTool({
      name: 'asker',
      description: 'asks while detached',
      schema: z.strictObject({}),
      executionPolicy: 'resource-aware',
      mode: 'async',
      prepare: () => ({
        requests: [],
        resources: [],
        execute: async (ctx) => (await ctx.ask(createHostInput({ questions: [{ id: 'go', question: 'Go?', type: 'confirm' }] })), { text: '' }),
      }),
    });
    const host = await space.host({ tools: [asker], questioner: { ask: async () => ({ answers: { go: true }, source: 'user' }) } });
    const outcome = await submit(host, 'asker', {});
    if (outcome.kind !== 'result') throw new Error('withdrawn');
    expect(outcome.result.error?.message).toContain('a detached (async) step cannot ask questions');
  });
});

describe('tools run only inside a host', () => {
  it('what the registry and builtinTools() hand out has nothing to execute', async () => {
    const host = await space.host({ tools: builtinTools() });
    for (const tool of [...builtinTools(), ...host.tools.list()]) {
      const callable = Object.entries(tool).filter(([, value]) => typeof value === 'function');
      expect(callable, tool.name).toEqual([]);
      expect(Object.getOwnPropertySymbols(tool), tool.name).toEqual([]);
    }
    expect(Object.isFrozen(host.tools.get('write_file'))).toBe(true);
  });

  it('a preview cannot run either, and a denied call is audited', async () => {
    const host = await space.host({ tools: builtinTools() });
    const preview = await host.preview({ id: 'p', tool: 'write_file', args: { path: 'x.txt', content: 'x' } }, live());
    expect(Object.values(preview).some((value) => typeof value === 'function')).toBe(false);
    expect((await host.invoke({ id: 'w', tool: 'write_file', args: { path: 'x.txt', content: 'x' } })).status).toBe('denied');
    expect(host.auditSnapshot()).toEqual([{ seq: 1, class: 'write', result: 'deny', decider: 'policy' }]);
  });
});

describe('process facts are explicit, and argv and scripts stay out of logs', () => {
  it('util.inspect and JSON.stringify of process and shell requests show neither argv, script nor env values', async () => {
    const seen: GateInput[] = [];
    const host = await space.host({
      tools: builtinTools(),
      policy: { allow: ['process', 'shell'] },
      gates: [{ name: 'look', evaluate: async (input) => (seen.push(input), { decision: 'deny', reason: 'looked' }) }],
      environment: { env: { PATH: process.env.PATH }, secretNames: [], processEnv: { mode: 'inherit_only', names: ['PATH'] } },
    });
    await host.invoke({ id: 'e', tool: 'exec', args: { command: process.execPath, args: ['--token=hunter2'], env: { GREETING: 'sk-secret' } } });
    await host.invoke({ id: 's', tool: 'shell', args: { script: 'echo hunter2' } });
    for (const { request } of seen) {
      for (const shown of [inspect(request, { depth: 10 }), JSON.stringify(request), JSON.stringify(seen)]) {
        expect(shown).not.toMatch(/hunter2|sk-secret/);
        expect(shown).toContain('redacted');
      }
    }
    // A display that means to show the command reads the facts by name.
    const exec = seen[0]!.request;
    expect(exec.class === 'process' && [exec.argv, exec.env, exec.envMode]).toEqual([['--token=hunter2'], { GREETING: 'sk-secret' }, { mode: 'inherit_only', names: ['PATH'] }]);
  });
});

describe('a host as plain as its use', () => {
  it('a host that starts no process needs no environment, and a process it does start gets an empty one', async () => {
    await writeFile(path.join(space.dir, 'a.txt'), 'a');
    const host = new ToolHost({
      workspace: await Workspace.create(space.dir),
      policy: Policy.fromText({ allow: ['read(a.txt)', 'process'] }),
      tools: new ToolRegistry(builtinTools()),
    });
    expect((await host.invoke({ id: 'r', tool: 'read_file', args: { path: 'a.txt' } })).status).toBe('success');
    const env = await host.invoke({ id: 'e', tool: 'exec', args: { command: process.execPath, args: ['-e', 'console.log(JSON.stringify(process.env))'] } });
    expect(JSON.parse(env.output!.text)).toEqual({});
    await host.dispose();
  });

  it.each([
    [{ policy: { allow: ['rite(a.txt)'] } }, /^policy\.allow: /],
    [{ approve: ['process('] }, /^approve: /],
    [{ workspace: '/no/such/directory' }, /^workspace: /],
  ])('createToolHost names the option a bad value was given in', async (setup, message) => {
    const error = await createToolHost({ workspace: space.dir, tools: [], ...setup }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ kind: 'invalid_configuration', message: expect.stringMatching(message) });
  });
});
