import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { HostError, ToolRegistry, builtinTools, defaultToolTimeoutMs, defineTool, maxToolTimeoutMs, z, type PreToolGate, type ToolOrigin } from '../../src/index.js';
import { repoRoot } from '../support/cli.js';
import { returning, workspacePerTest } from './support.js';

const space = workspacePerTest();
const schema = z.strictObject({ text: z.string() });
const run = (args: { text: string }) => ({ text: args.text });

/** What defineTool threw for a definition, as an embedder sees it. */
function refusal(definition: unknown): HostError {
  try {
    defineTool(definition as never);
  } catch (error) {
    if (error instanceof HostError) return error;
    throw error;
  }
  throw new Error('defineTool accepted the definition');
}

describe('tool contract and trust origin', () => {
  it('a tool the embedder defines is host-provided; a built-in declares the classes it enforces', () => {
    expect(defineTool({ name: 'mine', description: 'd', schema, run }).origin).toBe('host');
    const exec = builtinTools().find((tool) => tool.name === 'exec')!;
    expect(exec).toMatchObject({ origin: 'built-in', classes: ['process'] });
  });

  it('gates and approvers can tell a host-provided tool from a built-in one by the request source', async () => {
    const sources: [string, ToolOrigin][] = [];
    const gate: PreToolGate = { name: 'watch', evaluate: async ({ tool, source }) => (sources.push([tool, source]), { decision: 'continue' }) };
    const mine = defineTool({
      name: 'mine',
      description: 'asks to write',
      schema: z.strictObject({}),
      async run(_args, ctx) {
        await ctx.authorize({ class: 'write', path: await ctx.workspace.resolveForWrite('a.txt') });
        return { text: 'ok' };
      },
    });
    const host = await space.host({ tools: [mine, ...builtinTools()], policy: { allow: ['write'] }, gates: [gate] });
    await host.invoke({ id: '1', tool: 'mine', args: {} });
    await host.invoke({ id: '2', tool: 'write_file', args: { path: 'b.txt', content: 'x' } });
    expect(sources).toEqual([
      ['mine', 'host'],
      ['write_file', 'built-in'],
    ]);
  });

  it('a tool that throws is a failed result the host reports, never an exception', async () => {
    const broken = returning('broken', () => {
      throw new Error('disk on fire');
    });
    const result = await (await space.host({ tools: [broken] })).invoke({ id: 'b', tool: 'broken', args: {} });
    expect(result).toMatchObject({ status: 'failure', error: { kind: 'execution_failed', message: 'disk on fire' } });
  });

  it('hostile arguments are refused before anything runs: unknown fields, wrong types, __proto__', async () => {
    let ran = 0;
    const tool = defineTool({ name: 'strict', description: 'd', schema, run: (args) => (ran++, { text: args.text }) });
    const host = await space.host({ tools: [tool] });
    for (const args of [{ text: 'x', extra: 1 }, { text: 5 }, JSON.parse('{"text":"x","__proto__":{}}')]) {
      expect((await host.invoke({ id: 'h', tool: 'strict', args })).error?.kind).toBe('invalid_arguments');
    }
    expect(ran).toBe(0);
  });
});

describe('a declaration is checked once, when it is defined', () => {
  it.each([
    ['a name that is not a string', { name: 42, description: 'd', schema, run }, 'its name is not a string'],
    ['a name with a space', { name: 'two words', description: 'd', schema, run }, 'is not a tool name'],
    ['a description that is not a string', { name: 'x', description: { text: 'd' }, schema, run }, 'its description is not a string'],
    ['a description over 4096 characters', { name: 'x', description: 'd'.repeat(4097), schema, run }, 'longer than 4096'],
    ['a JSON Schema map instead of a zod schema', { name: 'x', description: 'd', schema: { type: 'object' }, run }, 'its schema is not a zod schema'],
    ['a schema that drops unknown fields (z.object)', { name: 'x', description: 'd', schema: z.object({ text: z.string() }), run }, 'z.strictObject'],
    ['a schema of something other than an object', { name: 'x', description: 'd', schema: z.string(), run }, 'must describe an object of arguments'],
    ['neither run nor prepare', { name: 'x', description: 'd', schema }, 'neither a run nor a prepare function'],
  ])('refuses %s with an invalid_tool error that says what to change', (_case, definition, message) => {
    const error = refusal(definition);
    expect(error.kind).toBe('invalid_tool');
    expect(error.message).toContain(message);
  });

  it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY, 3e9, 2.5, '10s'])('a timeoutMs of %s means the default, with a warning the host reports once', async (timeoutMs) => {
    const tool = defineTool({ name: 'slow', description: 'd', schema, run, timeoutMs: timeoutMs as number });
    expect(tool.timeoutMs).toBe(defaultToolTimeoutMs);
    expect(tool.warnings).toEqual([expect.stringMatching(/^tool slow: timeoutMs should be a whole number of milliseconds from 1 to 86400000 .*using the default 30000$/)]);
    const warnings: string[] = [];
    const host = await space.host({ tools: [tool], onWarning: (line) => warnings.push(line) });
    await host.invoke({ id: '1', tool: 'slow', args: { text: 'a' } });
    await host.invoke({ id: '2', tool: 'slow', args: { text: 'b' } });
    expect(warnings).toEqual(tool.warnings);
  });

  it('keeps a timeout up to 24 hours', () => {
    expect(defineTool({ name: 'long', description: 'd', schema, run, timeoutMs: maxToolTimeoutMs }).timeoutMs).toBe(maxToolTimeoutMs);
  });

  it('async mode on a tool that runs exclusively means sync, with a warning', () => {
    const tool = defineTool({ name: 'x', description: 'd', schema, run, mode: 'async' as never });
    expect(tool.mode).toBe('sync');
    expect(tool.warnings[0]).toContain('mode is "async" but the tool runs exclusively');
  });

  it('a registry takes only tools made by defineTool, one per name', () => {
    const registry = new ToolRegistry();
    expect(() => registry.register({ name: 'fake', description: 'd', schema, run } as never)).toThrow(/not made by defineTool/);
    registry.register(defineTool({ name: 'once', description: 'd', schema, run }));
    expect(() => registry.register(defineTool({ name: 'once', description: 'd', schema, run }))).toThrow(/already registered/);
  });
});

describe('what a tool returns is checked against its contract', () => {
  it.each([
    ['undefined', undefined, 'returned undefined, not a tool output'],
    ['a string', 'hello', 'returned a string ("hello"), not a tool output'],
    ['a number', 42, 'returned a number, not a tool output'],
    ['text that is not a string', { text: 5 }, 'returned an output of the wrong shape: text:'],
    ['an image that is not an image', { text: 'x', images: [{ mediaType: 'text/plain', data: 'aGk=' }] }, 'returned an output of the wrong shape: images.0.mediaType'],
  ])('%s is execution_failed, naming the tool, and is not passed on', async (_case, value, message) => {
    const result = await (await space.host({ tools: [returning('odd', () => value)] })).invoke({ id: 'o', tool: 'odd', args: {} });
    expect(result.status).toBe('failure');
    expect(result.error?.kind).toBe('execution_failed');
    expect(result.error?.message).toContain(`tool odd ${message}`);
    expect(result.output).toBeUndefined();
  });

  it('data that does not match the data schema the tool declares fails the call', async () => {
    const tool = defineTool({
      name: 'counted',
      description: 'd',
      schema: z.strictObject({}),
      data: z.strictObject({ count: z.number() }),
      run: () => ({ text: '', data: { count: 'three' } }),
    });
    const result = await (await space.host({ tools: [tool] })).invoke({ id: 'c', tool: 'counted', args: {} });
    expect(result.error?.message).toContain('tool counted returned data that does not match the data schema it declares: count:');
  });

  it('a run that is not async works, and one that throws at once is a failed result', async () => {
    const host = await space.host({ tools: [returning('plain', () => ({ text: 'plain' })), returning('sudden', () => JSON.parse('{'))] });
    expect((await host.invoke({ id: 'p', tool: 'plain', args: {} })).output?.text).toBe('plain');
    expect((await host.invoke({ id: 's', tool: 'sudden', args: {} })).error?.kind).toBe('execution_failed');
  });

  it('a prepare that returns no plan fails, naming the tool', async () => {
    const tool = defineTool({ name: 'planless', description: 'd', schema: z.strictObject({}), executionPolicy: 'resource-aware', prepare: () => ({ requests: [] }) as never });
    const result = await (await space.host({ tools: [tool] })).invoke({ id: 'p', tool: 'planless', args: {} });
    expect(result.error?.message).toContain('tool planless: prepare returned a plan without a resources list');
  });
});

describe('per-call limits', () => {
  it('a call past its limit always ends with a timeout, even in a script with nothing else to wait for', async () => {
    // The tool waits for its signal and nothing else keeps Node alive: only the deadline's timer does.
    const script = path.join(space.dir, 'stall.mjs');
    const library = pathToFileURL(path.join(repoRoot, 'dist', 'src', 'index.js')).href;
    await writeFile(
      script,
      `import { createToolHost, defineTool, z } from ${JSON.stringify(library)};
const stall = defineTool({ name: 'stall', description: 'waits to be stopped', schema: z.strictObject({}),
  run: (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))) });
const host = await createToolHost({ workspace: process.cwd(), tools: [stall] });
const result = await host.invoke({ id: 's', tool: 'stall', args: {}, timeoutMs: 20 });
console.log(JSON.stringify({ status: result.status, kind: result.error?.kind }));
`,
    );
    const ran = await execa('node', [script], { cwd: space.dir, reject: false });
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ status: 'failure', kind: 'timeout' });
  });

  it.each([0, -1, 2.5, 3e9])('refuses a call whose own timeoutMs is %s, naming the option', async (timeoutMs) => {
    const host = await space.host({ tools: [returning('quick', () => ({ text: '' }))] });
    const result = await host.invoke({ id: 'q', tool: 'quick', args: {}, timeoutMs });
    expect(result.error?.kind).toBe('invalid_arguments');
    expect(result.error?.message).toContain('timeoutMs should be a whole number of milliseconds from 1 to 86400000');
  });
});
