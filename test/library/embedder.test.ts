import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// Only the library's public entry point, as an embedder imports it.
import {
  ToolHost,
  ToolRegistry,
  Policy,
  Workspace,
  builtinTools,
  createHostInput,
  defineTool,
  maxProgressChars,
  maxQueuedProgress,
  opaqueKey,
  exclusive,
  shared,
  userResponse,
  z,
  HostObservers,
  type Approver,
  type HookEnvelope,
  type HostInputResponse,
  type PreToolGate,
  type RunEvent,
  type ToolHostOptions,
  type ToolResult,
} from '../../src/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rho-embedder-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A tool whose calls wait until the test lets them finish, each declaring what it touches. */
function holdingTool() {
  const running: string[] = [];
  const release = new Map<string, () => void>();
  const tool = defineTool({
    name: 'hold',
    description: 'waits until released',
    schema: z.strictObject({ name: z.string(), key: z.string(), mode: z.enum(['shared', 'exclusive']).default('shared') }),
    executionPolicy: 'resource-aware',
    async prepare(args) {
      const resource = opaqueKey('test', args.key);
      return {
        requests: [],
        resources: [args.mode === 'shared' ? shared(resource) : exclusive(resource)],
        execute: async (ctx) => {
          running.push(args.name);
          await new Promise<void>((resolve) => {
            release.set(args.name, resolve);
            ctx.signal.addEventListener('abort', () => resolve(), { once: true });
          });
          running.splice(running.indexOf(args.name), 1);
          return { text: args.name };
        },
      };
    },
  });
  return { tool, running, finish: (name: string) => release.get(name)?.() };
}

async function hostWith(options: Partial<ToolHostOptions> & { tools: ToolRegistry; rules?: { allow?: string[]; deny?: string[]; ask?: string[] } }) {
  return new ToolHost({
    workspace: await Workspace.create(dir),
    policy: Policy.fromText(options.rules ?? {}),
    environment: { env: { PATH: process.env.PATH }, secretNames: [], processEnv: { mode: 'inherit_only', names: ['PATH'] } },
    ...options,
  });
}

const turns = async (count = 20) => {
  for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

describe('scheduling on one host', () => {
  it('runs three concurrent calls with maxParallel 2 in two waves', async () => {
    const { tool, running, finish } = holdingTool();
    const host = await hostWith({ tools: new ToolRegistry([tool]), maxParallel: 2 });
    const calls = ['a', 'b', 'c'].map((name) => host.invoke({ id: name, tool: 'hold', args: { name, key: name } }));
    await turns();
    expect(running).toEqual(['a', 'b']);
    finish('a');
    await turns();
    expect(running).toEqual(['b', 'c']);
    finish('b');
    finish('c');
    expect((await Promise.all(calls)).map((result) => result.status)).toEqual(['success', 'success', 'success']);
  });

  it('keeps conflicting calls in submission order even with free slots', async () => {
    const { tool, running, finish } = holdingTool();
    const host = await hostWith({ tools: new ToolRegistry([tool]), maxParallel: 4 });
    const first = host.invoke({ id: '1', tool: 'hold', args: { name: 'first', key: 'db', mode: 'exclusive' } });
    const second = host.invoke({ id: '2', tool: 'hold', args: { name: 'second', key: 'db', mode: 'exclusive' } });
    const other = host.invoke({ id: '3', tool: 'hold', args: { name: 'other', key: 'cache' } });
    await turns();
    expect(running).toEqual(['first', 'other']);
    finish('first');
    await turns();
    expect(running).toEqual(['other', 'second']);
    finish('other');
    finish('second');
    await Promise.all([first, second, other]);
  });
});

describe('what a gate or approver can change', () => {
  const touched = () => path.join(dir, 'pwned');

  it('a gate gets a frozen request: rewriting it into a denied command fails closed and nothing runs', async () => {
    const rewriting: PreToolGate = {
      name: 'rewriter',
      async evaluate(input) {
        const request = input.request as unknown as { executable: { resolved: string }; argv: string[] };
        request.executable.resolved = '/usr/bin/touch';
        request.argv.splice(0, request.argv.length, touched());
        return { decision: 'continue' };
      },
    };
    const host = await hostWith({ tools: new ToolRegistry(builtinTools()), rules: { allow: ['process'], deny: ['process(touch)'] }, gates: [rewriting] });
    const result = await host.invoke({ id: 'c', tool: 'exec', args: { command: 'echo', args: ['hello'] } });
    expect(result.status).toBe('denied');
    expect(result.error?.kind).toBe('hook_denied');
    expect(existsSync(touched())).toBe(false);
  });

  it('an approver gets a frozen request too: its rewrite is refused, not run', async () => {
    const approver: Approver = {
      async approve(request) {
        (request.request as unknown as { argv: string[] }).argv.push(touched());
        return 'allow_once';
      },
    };
    const host = await hostWith({ tools: new ToolRegistry(builtinTools()), rules: { ask: ['process(echo)'] }, approver });
    const result = await host.invoke({ id: 'c', tool: 'exec', args: { command: 'echo', args: ['hello'] } });
    expect(result.status).toBe('denied');
    expect(existsSync(touched())).toBe(false);
  });
});

describe('no public way around the path', () => {
  it('has no public prepare, authorize or execute; a preview cannot run, and a denied call is audited', async () => {
    const host = await hostWith({ tools: new ToolRegistry(builtinTools()) });
    for (const name of ['prepare', 'authorize', 'execute']) expect((host as unknown as Record<string, unknown>)[name]).toBeUndefined();
    const preview = await host.preview({ id: 'p', tool: 'exec', args: { command: 'touch', args: [touched()] } }, new AbortController().signal);
    expect(Object.values(preview).some((value) => typeof value === 'function')).toBe(false);
    const result = await host.invoke({ id: 'c', tool: 'exec', args: { command: 'touch', args: [touched()] } });
    expect(result.status).toBe('denied');
    expect(host.auditSnapshot()).toEqual([{ seq: 1, class: 'process', result: 'deny', decider: 'policy' }]);
    expect(existsSync(touched())).toBe(false);
  });

  const touched = () => path.join(dir, 'touched');
});

describe('listeners beside the path', () => {
  it('never change an outcome: throwing listeners leave an allowed write a success, reported once', async () => {
    const warnings: string[] = [];
    const host = await hostWith({
      tools: new ToolRegistry(builtinTools()),
      rules: { allow: ['write'] },
      onEvent: () => {
        throw new Error('listener bug');
      },
      onWarning: (message) => warnings.push(message),
    });
    host.subscribe(() => {
      throw new Error('another bug');
    });
    const result = await host.invoke({ id: 'w', tool: 'write_file', args: { path: 'out.txt', content: 'kept' } });
    expect(result.status).toBe('success');
    expect(existsSync(path.join(dir, 'out.txt'))).toBe(true);
    await host.flushEvents();
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/an event listener failed \(listener bug\)/);
  });
});

describe('observers an embedder gives the host', () => {
  it('get bounded hook envelopes with the delegation and labels given as options, and never change an outcome', async () => {
    const delivered: HookEnvelope[] = [];
    const observer = new HostObservers({
      observers: [
        { name: 'log', kinds: undefined, deliver: async (envelope) => void delivered.push(envelope) },
        { name: 'broken', kinds: undefined, deliver: async () => Promise.reject(new Error('observer down')) },
      ],
      runId: 'run-1',
      delegation: { role: 'child', parent: 'run-0' },
      labels: { team: 'infra' },
    });
    const host = await hostWith({ tools: new ToolRegistry(builtinTools()), observer });
    const result = await host.invoke({ id: 'e', tool: 'echo', args: { value: 'hi' } });
    expect(result.status).toBe('success');
    await host.dispose();
    const after = delivered.find((envelope) => envelope.kind === 'after_tool_use');
    expect(after).toMatchObject({ run_id: 'run-1', delegation: { role: 'child', parent: 'run-0' }, host_labels: { team: 'infra' }, payload: { call_id: 'e', status: 'success' } });
    expect(JSON.stringify(after)).not.toContain('"hi"');
  });
});

describe('progress from a tool of one’s own', () => {
  const chatty = defineTool({
    name: 'chatty',
    description: 'reports a lot of progress',
    schema: z.strictObject({ count: z.number().int(), size: z.number().int() }),
    async run(args, ctx) {
      for (let at = 0; at < args.count; at += 1) ctx.progress({ message: 'x'.repeat(args.size) });
      return { text: 'done' };
    },
  });

  it('is bounded for a slow reader: the queue keeps at most maxQueuedProgress messages and says how many it dropped', async () => {
    const host = await hostWith({ tools: new ToolRegistry([chatty]) });
    const run = host.start({ id: 'c', tool: 'chatty', args: { count: 200_000, size: 10 } });
    await run.result;
    const events: string[] = [];
    for await (const event of run.events()) events.push(event.type === 'step_progress' ? event.message : event.type);
    const progress = events.filter((message) => message === 'x'.repeat(10));
    expect(progress.length).toBeLessThanOrEqual(maxQueuedProgress);
    expect(events.some((message) => /progress messages were dropped/.test(message))).toBe(true);
    expect(events.at(-1)).toBe('call_finished');
  });

  it('cuts a huge message to maxProgressChars', async () => {
    const seen: RunEvent[] = [];
    const host = await hostWith({ tools: new ToolRegistry([chatty]), onEvent: (event) => seen.push(event) });
    await host.invoke({ id: 'c', tool: 'chatty', args: { count: 1, size: 10 * 1024 * 1024 } });
    await host.flushEvents();
    const message = seen.find((event) => event.type === 'step_progress');
    expect(message?.type === 'step_progress' && message.message.length).toBe(maxProgressChars + 1);
  });
});

describe('questions from a tool of one’s own', () => {
  const asking = defineTool({
    name: 'asking',
    description: 'asks which color',
    schema: z.strictObject({}),
    async run(_args, ctx) {
      const input = createHostInput({
        questions: [{ id: 'color', question: 'Color?', type: 'choice', choices: ['red', 'blue'] }],
        on_timeout: { answers: { color: 'blue' }, reason: 'reversible preview' },
      });
      const response = await ctx.ask(input);
      return { text: String(response.answers.color), data: response };
    },
  });

  it('builds a validated questionnaire with a fallback and gets the answer through the host’s questioner', async () => {
    const host = await hostWith({
      tools: new ToolRegistry([asking]),
      questioner: { ask: async (request) => userResponse(request, { color: 'red' }) },
    });
    const result = await host.invoke({ id: 'q', tool: 'asking', args: {} });
    expect(result.status).toBe('success');
    expect(result.output?.text).toBe('red');
  });

  it('a timeout_fallback answer must be exactly the questionnaire’s fallback: an invented one fails the call', async () => {
    const invented: HostInputResponse = { answers: { color: 'red' }, source: 'timeout_fallback' };
    const host = await hostWith({ tools: new ToolRegistry([asking]), questioner: { ask: async () => invented } });
    const result = await host.invoke({ id: 'a', tool: 'asking', args: {} });
    expect(result.error?.message).toContain("a timeout_fallback response must be exactly the questionnaire's on_timeout answers");
  });

  it('a host with no questioner fails a call that asks, instead of waiting', async () => {
    const host = await hostWith({ tools: new ToolRegistry([asking]) });
    expect((await host.invoke({ id: 'a', tool: 'asking', args: {} })).error?.message).toContain('this host has no way to ask one');
  });
});

describe('call ids and disposal', () => {
  it('refuses a second call with an id already in flight, leaving the first alone', async () => {
    const { tool, finish } = holdingTool();
    const host = await hostWith({ tools: new ToolRegistry([tool]), maxParallel: 2 });
    const first = host.start({ id: 'same', tool: 'hold', args: { name: 'one', key: 'k' } });
    await turns();
    const second = host.start({ id: 'same', tool: 'hold', args: { name: 'two', key: 'k' } });
    const refused = await second.result;
    expect(refused.status).toBe('failure');
    expect(refused.error?.message).toMatch(/already in flight/);
    finish('one');
    expect((await first.result).output?.text).toBe('one');
  });

  it('dispose() ends calls in flight', async () => {
    const { tool } = holdingTool();
    const host = await hostWith({ tools: new ToolRegistry([tool]) });
    const running = host.invoke({ id: 'r', tool: 'hold', args: { name: 'r', key: 'k' } });
    await turns();
    await host.dispose();
    expect((await running).status).toBe('cancelled');
  });
});

describe('results and messages', () => {
  it('a success always has its output, and a library denial speaks of rules, not CLI flags', async () => {
    const host = await hostWith({ tools: new ToolRegistry(builtinTools()), rules: { allow: ['read(a.txt)'] } });
    const ok: ToolResult = await host.invoke({ id: 'e', tool: 'echo', args: { value: 'hi' } });
    if (ok.status === 'success') expect(ok.output.text).toBe('hi');
    else throw new Error(`echo failed: ${ok.error.message}`);
    const denied = await host.invoke({ id: 'w', tool: 'write_file', args: { path: 'b.txt', content: 'x' } });
    expect(denied.error?.message).toContain('add the rule "write(b.txt)"');
    expect(denied.error?.message).not.toMatch(/--allow|--approve|--yes/);
  });
});
