import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Tool } from '../../src/host/tool.js';

/** How many object and unknown schemas rho's code has asked zod for, so far. */
const built = vi.hoisted(() => ({ schemas: 0 }));

vi.mock('zod', async (importOriginal) => {
  const actual = await importOriginal<typeof import('zod')>();
  const counted =
    <A extends unknown[], R>(make: (...args: A) => R) =>
    (...args: A): R => {
      built.schemas += 1;
      return make(...args);
    };
  const z = { ...actual.z, object: counted(actual.z.object), strictObject: counted(actual.z.strictObject), unknown: counted(actual.z.unknown) };
  return { ...actual, z };
});

// Test files share loaded modules: rho is loaded afresh here, through the counting zod, and
// dropped afterwards, so no other file sees either.
let root: string;
beforeAll(async () => {
  vi.resetModules();
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-lazy-builtins-')));
});
afterAll(async () => {
  vi.resetModules();
  await rm(root, { recursive: true, force: true });
});

/** Whether reading the tool's schemas built something, that is, whether they were still unbuilt. */
function buildsOnRead(tool: Tool): { tool: string; schema: boolean; data: boolean } {
  const before = built.schemas;
  void tool.schema;
  const afterSchema = built.schemas;
  void tool.data;
  return { tool: tool.name, schema: afterSchema > before, data: built.schemas > afterSchema };
}

describe('built-in tool schemas', () => {
  it('a workflow of one exec step, compiled and called, builds the schemas of exec alone', async () => {
    const { builtinTools } = await import('../../src/tools/index.js');
    const { ToolRegistry } = await import('../../src/host/registry.js');
    const { ToolHost } = await import('../../src/host/tool-host.js');
    const { Policy } = await import('../../src/host/policy.js');
    const { Workspace } = await import('../../src/host/workspace.js');
    const { compileWorkflow } = await import('../../src/workflow/compile.js');
    const { WorkflowSource } = await import('../../src/workflow/source.js');
    const tools = builtinTools();
    const registry = new ToolRegistry(tools);
    const parsed = WorkflowSource.parse('one.yml', 'version: 1\nname: one\nsteps:\n  - id: s1\n    tool: exec\n    with: { command: "true" }\n');
    expect(compileWorkflow(parsed.source!, registry).problems).toEqual([]);
    const host = new ToolHost({
      workspace: await Workspace.create(root),
      policy: Policy.fromText({ allow: ['process(true)'] }),
      tools: registry,
      environment: { env: { PATH: process.env.PATH ?? '' }, secretNames: [], processEnv: { mode: 'inherit' } },
    });
    try {
      expect(await host.invoke({ id: 'c1', tool: 'exec', args: { command: 'true' } })).toMatchObject({ status: 'success' });
    } finally {
      await host.dispose();
    }

    const exec = tools.find((tool) => tool.name === 'exec')!;
    // The call parsed exec's arguments; a built-in's output is not parsed against its data schema on each call.
    expect(buildsOnRead(exec)).toEqual({ tool: 'exec', schema: false, data: true });
    for (const tool of tools.filter((other) => other !== exec)) expect(buildsOnRead(tool)).toEqual({ tool: tool.name, schema: true, data: true });
    // Built once: a second read builds nothing.
    for (const tool of tools) expect(buildsOnRead(tool)).toEqual({ tool: tool.name, schema: false, data: false });
  });
});
