import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Policy } from '../../src/host/policy.js';
import { ToolRegistry } from '../../src/host/registry.js';
import { defaultToolTimeoutMs, defineTool, type Tool } from '../../src/host/tool.js';
import { ToolHost } from '../../src/host/tool-host.js';
import { Workspace } from '../../src/host/workspace.js';
import { checkModuleDeclaration } from '../../src/workflow/extensions/declaration.js';

const schema = z.strictObject({ text: z.string() });
const run = async (args: { text: string }) => ({ text: args.text.toUpperCase(), data: args.text.length });
const good = { name: 'shout', description: 'Upper-cases text', schema, run };

function check(raw: unknown) {
  return checkModuleDeclaration(raw, './tools/x.mjs');
}

/** A declaration whose `field` is a getter that throws (what a broken module can export). */
function throwingField(field: string): object {
  return Object.defineProperty({ ...good }, field, {
    get() {
      throw new Error(`${field} exploded`);
    },
  });
}

let root: string;
let host: ToolHost;
beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-declaration-')));
  host = new ToolHost({
    workspace: await Workspace.create(root),
    policy: Policy.fromText({ allow: ['read'] }),
    tools: new ToolRegistry(),
    environment: { env: {}, secretNames: [], processEnv: { mode: 'inherit' } },
  });
});
afterAll(async () => {
  await host.dispose();
  await rm(root, { recursive: true, force: true });
});

async function invoke(tool: Tool, args: unknown) {
  const registry = host.tools;
  if (!registry.get(tool.name)) registry.register(tool);
  return host.invoke({ id: `c-${tool.name}`, tool: tool.name, args });
}

describe('module tool declarations (untrusted data)', () => {
  it('accepts a defineTool definition (which may come from another copy of rho), with origin host and defaults filled in', async () => {
    const { tool, warnings } = check(defineTool(good));
    expect(warnings).toEqual([]);
    expect(tool).toMatchObject({ name: 'shout', origin: 'host', executionPolicy: 'exclusive', mode: 'sync', timeoutMs: defaultToolTimeoutMs, classes: [] });
    const result = await invoke(tool!, { text: 'hi' });
    expect(result.output).toMatchObject({ text: 'HI', data: 2 });
  });

  it.each([
    ['name', 'reading its name threw: name exploded'],
    ['description', 'reading its description threw: description exploded'],
    ['schema', 'reading its schema threw: schema exploded'],
  ])('leaves a tool out with one warning when its %s throws', (field, reason) => {
    const { tool, warnings } = check(throwingField(field));
    expect(tool).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(reason);
    expect(warnings[0]).toMatch(/^\.\/tools\/x\.mjs: .*was left out/);
  });

  it.each([
    ['a name that is not a string', { ...good, name: 42 }, 'its name is not a string'],
    ['a name with a dot (reserved for MCP tools)', { ...good, name: 'a.b' }, 'is not a tool name'],
    ['a description that is not a string', { ...good, description: { text: 'hi' } }, 'its description is not a string'],
    ['a description over the size bound', { ...good, description: 'x'.repeat(5000) }, 'longer than 4096'],
    ['a schema that is not an object', { ...good, schema: 'z.string()' }, 'its schema is unusable: the schema is not a JSON Schema object'],
    ['a schema that is a number', { ...good, schema: 7 }, 'not a JSON Schema object'],
    ['a zod schema of something other than an object', { ...good, schema: z.string() }, 'must describe an object of arguments'],
    ['a JSON Schema of an array', { ...good, schema: { type: 'array' } }, 'must describe an object of arguments'],
    ['a cyclic JSON Schema', { ...good, schema: cyclicSchema() }, 'not plain JSON data'],
    ['no run or prepare function', { ...good, run: undefined }, 'neither a run nor a prepare function'],
    ['something that is not a definition', 'word_count', 'not a tool definition'],
  ])('leaves a tool out for %s', (_case, raw, reason) => {
    const { tool, warnings } = check(raw);
    expect(tool).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(reason);
  });

  it.each([
    ['a negative timeout', { timeoutMs: -5 }, 'timeoutMs'],
    ['a timeout that is not a number', { timeoutMs: '10s' }, 'timeoutMs'],
    ['a fractional timeout', { timeoutMs: 2.5 }, 'timeoutMs'],
  ])('uses the default timeout for %s, with a warning', (_case, fields, field) => {
    const { tool, warnings } = check({ ...good, ...fields });
    expect(tool!.timeoutMs).toBe(defaultToolTimeoutMs);
    expect(warnings).toEqual([expect.stringContaining(`tool shout: ${field} should be`)]);
  });

  it('uses the default for a timeout whose getter throws', () => {
    const { tool, warnings } = check(throwingField('timeoutMs'));
    expect(tool!.timeoutMs).toBe(defaultToolTimeoutMs);
    expect(warnings[0]).toContain('reading it threw: timeoutMs exploded');
  });

  it('uses the default execution policy for an unknown one, and for resource-aware without prepare', () => {
    const unknown = check({ ...good, executionPolicy: 'parallel' });
    expect(unknown.tool!.executionPolicy).toBe('exclusive');
    expect(unknown.warnings[0]).toContain('executionPolicy should be "exclusive" or "resource-aware"');
    const noPrepare = check({ ...good, executionPolicy: 'resource-aware' });
    expect(noPrepare.tool!.executionPolicy).toBe('exclusive');
    expect(noPrepare.warnings[0]).toContain('there is no prepare function');
  });

  it('uses defaults for a bad mode and a bad class list; declared classes stay metadata', () => {
    const { tool, warnings } = check({ ...good, mode: 'eventually', classes: ['read', 'teleport'] });
    expect(tool).toMatchObject({ mode: 'sync', classes: [] });
    expect(warnings).toHaveLength(2);
    expect(check({ ...good, classes: ['read', 'network'] }).tool!.classes).toEqual(['read', 'network']);
  });

  it('runs a prepare-only tool whose policy fell back to exclusive through prepare, authorize and execute', async () => {
    const requests: string[] = [];
    const prepareOnly = {
      name: 'peek',
      description: 'Reads a file through prepare',
      schema: z.strictObject({ path: z.string() }),
      executionPolicy: 'sideways',
      async prepare(args: { path: string }, ctx: { workspace: Workspace }) {
        const resolved = await ctx.workspace.resolveForWrite(args.path);
        requests.push(resolved.canonical);
        return { requests: [{ class: 'write', path: resolved }], resources: [], execute: async () => ({ text: 'peeked' }) };
      },
    };
    const { tool } = check(prepareOnly);
    expect(tool!.executionPolicy).toBe('exclusive');
    const denied = await invoke(tool!, { path: 'out.txt' });
    // The policy allows read only: the write request the prepare step declared is refused.
    expect(denied.status).toBe('denied');
    expect(denied.error!.message).toContain('write(out.txt)');
    expect(requests).toEqual([path.join(root, 'out.txt')]);
  });

  it('accepts a plain JSON Schema object and checks arguments strictly against it', async () => {
    const { tool, warnings } = check({
      name: 'plain',
      description: 'A tool without zod',
      schema: { type: 'object', properties: { count: { type: 'integer', minimum: 1 } }, required: ['count'] },
      run: async (args: { count: number }) => ({ text: String(args.count * 2) }),
    });
    expect(warnings).toEqual([]);
    expect((await invoke(tool!, { count: 3 })).output!.text).toBe('6');
    const unknownField = await invoke(tool!, { count: 3, extra: true });
    expect(unknownField.status).toBe('failure');
    expect(unknownField.error!.kind).toBe('invalid_arguments');
    expect((await invoke(tool!, { count: 0 })).error!.kind).toBe('invalid_arguments');
  });

  it('reads each field once, so a declaration cannot change after it was checked', () => {
    let reads = 0;
    const shifty = Object.defineProperty({ ...good }, 'name', {
      get() {
        reads++;
        return reads === 1 ? 'first_name' : 'bad name!';
      },
    });
    const { tool } = check(shifty);
    expect(tool!.name).toBe('first_name');
    expect(tool!.name).toBe('first_name');
    expect(reads).toBe(1);
  });

  it('leaves out a declaration that takes longer than its time budget to read', () => {
    const slow = Object.defineProperty({ ...good }, 'description', {
      get() {
        const until = performance.now() + 30;
        while (performance.now() < until) {
          // Busy: a getter that blocks is what the bound is for.
        }
        return 'slow';
      },
    });
    const { tool, warnings } = checkModuleDeclaration(slow, './slow.mjs', 10);
    expect(tool).toBeUndefined();
    expect(warnings[0]).toMatch(/reading its declaration took \d+ms, over the 10ms limit/);
  });

  it('keeps the selftest, bound to the declaration', async () => {
    const seen: string[] = [];
    const { tool } = check({
      ...good,
      marker: 'mine',
      async selftest(this: { marker: string }, dir: string) {
        seen.push(`${this.marker}:${dir}`);
      },
    });
    await tool!.selftest!('/tmp/x');
    expect(seen).toEqual(['mine:/tmp/x']);
  });
});

function cyclicSchema(): Record<string, unknown> {
  const schema: Record<string, unknown> = { type: 'object' };
  schema.self = schema;
  return schema;
}
