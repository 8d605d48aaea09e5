import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HostError } from '../../src/host/errors.js';
import { Policy } from '../../src/host/policy.js';
import { ToolRegistry } from '../../src/host/registry.js';
import { defineTool } from '../../src/host/tool.js';
import { ToolHost } from '../../src/host/tool-host.js';
import { Workspace } from '../../src/host/workspace.js';
import { echoTool } from '../../src/tools/echo.js';
import { compileWorkflow } from '../../src/workflow/compile.js';
import { checkModuleDeclaration } from '../../src/workflow/extensions/declaration.js';
import { WorkflowSource } from '../../src/workflow/source.js';

/** A tool whose schemas are functions that count their calls. */
function countingTool(name: string, schema: () => unknown = () => z.strictObject({ text: z.string() })) {
  const built = { schema: 0, data: 0 };
  const tool = defineTool({
    name,
    description: 'test tool with lazy schemas',
    schema: () => {
      built.schema += 1;
      return schema() as z.ZodObject<{ text: z.ZodString }>;
    },
    data: () => {
      built.data += 1;
      return z.strictObject({ length: z.number() });
    },
    run: (args) => ({ text: args.text, data: { length: args.text.length } }),
  });
  return { tool, built };
}

function compile(text: string, tools: ToolRegistry) {
  const parsed = WorkflowSource.parse('w.yml', text);
  expect(parsed.problems).toEqual([]);
  return compileWorkflow(parsed.source!, tools);
}

const echoStep = 'version: 1\nname: t\nsteps:\n  - id: a\n    tool: echo\n    with: { value: hi }\n';

let root: string;
let host: ToolHost;
beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-lazy-schemas-')));
  host = new ToolHost({
    workspace: await Workspace.create(root),
    policy: Policy.fromText({}),
    tools: new ToolRegistry(),
    environment: { env: {}, secretNames: [], processEnv: { mode: 'inherit' } },
  });
});
afterAll(async () => {
  await host.dispose();
  await rm(root, { recursive: true, force: true });
});

describe('schemas declared as functions', () => {
  it('are built neither by defineTool, nor by registering the tool, nor by compiling a workflow that does not call it', () => {
    const { tool, built } = countingTool('lazy');
    const registry = new ToolRegistry([echoTool, tool]);
    expect(compile(echoStep, registry).problems).toEqual([]);
    expect(built).toEqual({ schema: 0, data: 0 });
  });

  it('are built once, when a workflow step first needs them, and checked as an eager schema is', () => {
    const { tool, built } = countingTool('lazy');
    const registry = new ToolRegistry([tool]);
    const steps = 'version: 1\nname: t\nsteps:\n  - id: a\n    tool: lazy\n    with: { text: hi, extra: 1 }\n  - id: b\n    tool: lazy\n    with: { text: ho }\n';
    expect(compile(steps, registry).problems.map((problem) => problem.message)).toEqual(['invalid arguments for lazy: (arguments): unknown field(s) extra']);
    expect(built.schema).toBe(1);
    expect(tool.schema).toBe(tool.schema);
    expect(built.schema).toBe(1);
  });

  it('give a call the same arguments and data checks as eager ones, building each schema once', async () => {
    const { tool, built } = countingTool('lazy_call');
    host.tools.register(tool);
    const first = await host.invoke({ id: 'c1', tool: 'lazy_call', args: { text: 'four' } });
    expect(first).toMatchObject({ status: 'success', output: { text: 'four', data: { length: 4 } } });
    const refused = await host.invoke({ id: 'c2', tool: 'lazy_call', args: { text: 4 } });
    expect(refused).toMatchObject({ status: 'failure', error: { kind: 'invalid_arguments' } });
    expect(refused.error?.message).toMatch(/^lazy_call: invalid arguments: text: /);
    expect(built).toEqual({ schema: 1, data: 1 });
  });

  it('that turn out unusable fail on first use with a typed error naming the tool, and every use after', async () => {
    let calls = 0;
    const { tool } = countingTool('loose', () => {
      calls += 1;
      return z.object({ text: z.string() });
    });
    const message =
      'cannot use tool loose: its schema would drop fields it does not name without a word (z.object); use z.strictObject to refuse them, or z.looseObject to keep them';
    for (let read = 0; read < 2; read += 1) {
      let thrown: unknown;
      try {
        void tool.schema;
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(HostError);
      expect(thrown).toMatchObject({ kind: 'invalid_tool', message });
    }
    expect(calls).toBe(1);
    host.tools.register(tool);
    const result = await host.invoke({ id: 'l1', tool: 'loose', args: { text: 'x' } });
    expect(result).toMatchObject({ status: 'failure', error: { message } });
  });

  it('of a module tool are built while its declaration is checked: a bad one leaves the tool out', () => {
    const throwing = {
      name: 'broken',
      description: 'd',
      // What a module's own code may throw: anything.
      schema: () => {
        throw new Error('no schema today');
      },
      run: () => ({ text: '' }),
    };
    expect(checkModuleDeclaration(throwing, './tools/x.mjs')).toEqual({
      warnings: ['./tools/x.mjs: tool broken was left out: its schema is unusable: no schema today'],
    });
    const good = checkModuleDeclaration({ ...throwing, schema: () => z.strictObject({ text: z.string() }), data: () => 'not zod' }, './tools/x.mjs');
    expect(good.tool?.schema.safeParse({ text: 'a' }).success).toBe(true);
    expect(good.tool?.data).toBeUndefined();
    expect(good.warnings).toEqual(['./tools/x.mjs: tool broken: data: its data function returned string, not a zod schema; using none']);
  });
});
