import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Policy } from '../../src/host/policy.js';
import { ToolRegistry } from '../../src/host/registry.js';
import { defaultToolTimeoutMs } from '../../src/host/tool.js';
import { ToolHost } from '../../src/host/tool-host.js';
import { Workspace } from '../../src/host/workspace.js';
import { builtinRegistry } from '../../src/workflow/builtin-registry.js';
import { checkWorkflowFile } from '../../src/workflow/load.js';
import { formatProblem } from '../../src/workflow/problems.js';

const modulesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/modules');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rho-extensions-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function check(workflow: string, files: Record<string, string> = {}) {
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  const file = path.join(dir, 'flow.yml');
  await writeFile(file, workflow);
  const checked = await checkWorkflowFile(file, builtinRegistry(), 'import');
  return {
    ...checked,
    problems: checked.problems.map((problem) => formatProblem({ ...problem, file: 'flow.yml' })),
    warnings: (checked.extensions?.warnings ?? []).map((problem) => formatProblem({ ...problem, file: 'flow.yml' })),
  };
}

const flow = (tools: string, steps: string) => `version: 1\nname: t\ntools:\n${tools}\nsteps:\n${steps}\n`;

/** A module that needs no package: a plain object with a plain JSON Schema. */
const plainModule = `export default {
  name: 'double',
  description: 'Double a number',
  schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  async run(args) { return { text: String(args.n * 2), data: args.n * 2 }; },
};
`;

describe('loading a workflow’s module tools before validation', () => {
  it('loads a module relative to the workflow file and validates steps against its schema', async () => {
    const ok = await check(flow('  - module: ./double.mjs', '  - { id: a, tool: double, with: { n: 2 } }'), { 'double.mjs': plainModule });
    expect(ok.problems).toEqual([]);
    expect(ok.extensions!.tools.get('double')).toMatchObject({ origin: 'host' });

    const bad = await check(flow('  - module: ./double.mjs', '  - { id: a, tool: double, with: { n: two } }'), { 'double.mjs': plainModule });
    expect(bad.problems).toEqual([expect.stringMatching(/^flow\.yml:6:\d+: invalid arguments for double: n: /)]);
  });

  it('keeps each workflow’s modules to itself', async () => {
    const base = builtinRegistry();
    await writeFile(path.join(dir, 'double.mjs'), plainModule);
    await writeFile(path.join(dir, 'a.yml'), flow('  - module: ./double.mjs', '  - { id: a, tool: double, with: { n: 1 } }'));
    await writeFile(path.join(dir, 'b.yml'), 'version: 1\nname: b\nsteps:\n  - { id: a, tool: double, with: { n: 1 } }\n');
    expect((await checkWorkflowFile(path.join(dir, 'a.yml'), base, 'import')).problems).toEqual([]);
    const other = await checkWorkflowFile(path.join(dir, 'b.yml'), base, 'import');
    expect(other.problems.map((problem) => problem.message)).toEqual(['unknown tool "double"']);
    expect(base.get('double')).toBeUndefined();
  });

  it('loads every tool of an array export, leaving out a broken one with one warning located at its entry', async () => {
    const checked = await check(flow(`  - module: ${path.join(modulesDir, 'text-tools.mjs')}`, '  - { id: a, tool: upper, with: { text: hi } }'));
    expect(checked.problems).toEqual([]);
    expect(checked.extensions!.tools.get('upper')!.timeoutMs).toBe(defaultToolTimeoutMs);
    expect(checked.extensions!.tools.get('lower')).toBeUndefined();
    expect(checked.warnings).toEqual([
      expect.stringMatching(/^flow\.yml:4:13: warning: .*text-tools\.mjs: tool upper: timeoutMs should be a whole number .*using the default 30000$/),
      expect.stringMatching(/^flow\.yml:4:13: warning: .*text-tools\.mjs: tool lower was left out: its schema is unusable: the schema is not a JSON Schema object$/),
    ]);
  });

  it('loads a TypeScript module through tsx', async () => {
    const checked = await check(flow(`  - module: ${path.join(modulesDir, 'reverse.ts')}`, '  - { id: a, tool: reverse, with: { text: abc } }'));
    expect(checked.problems).toEqual([]);
    const tool = checked.extensions!.tools.get('reverse')!;
    const host = new ToolHost({ workspace: await Workspace.create(modulesDir), policy: new Policy(), tools: new ToolRegistry([tool]) });
    expect((await host.invoke({ id: 'r', tool: 'reverse', args: { text: 'abc' } })).output).toMatchObject({ text: 'cba' });
  });

  it.each([
    ['a missing file', './missing.mjs', {}, 'no tool module at'],
    ['a module that throws while loading', './boom.mjs', { 'boom.mjs': 'throw new Error("kaboom");\n' }, 'the module failed to load: kaboom'],
    ['a module without a default export', './named.mjs', { 'named.mjs': 'export const tool = {};\n' }, 'has no default export'],
    ['a file that is not a module', './notes.txt', { 'notes.txt': 'hello\n' }, 'a tool module is a .mjs, .js, .cjs or .ts file'],
  ])('reports %s as a problem at its entry', async (_case, modulePath, files, message) => {
    const checked = await check(flow(`  - module: ${modulePath}`, '  - { id: a, tool: echo, with: { value: 1 } }'), files);
    expect(checked.problems).toEqual([expect.stringMatching(new RegExp(`^flow\\.yml:4:13: tool module ${modulePath.replace('.', '\\.')}: .*${message}`))]);
  });

  it('refuses a module tool that would shadow a built-in', async () => {
    const shadow = plainModule.replace("'double'", "'read_file'");
    const checked = await check(flow('  - module: ./shadow.mjs', '  - { id: a, tool: echo, with: { value: 1 } }'), { 'shadow.mjs': shadow });
    expect(checked.problems).toEqual([expect.stringContaining('a tool named read_file is already registered (built-in); rename it')]);
  });

  it('suggests module tools for a mistyped name', async () => {
    const checked = await check(flow('  - module: ./double.mjs', '  - { id: a, tool: dubble, with: { n: 1 } }'), { 'double.mjs': plainModule });
    expect(checked.problems).toEqual([expect.stringContaining('unknown tool "dubble"; did you mean "double"?')]);
  });
});

describe('validating steps of declared MCP servers (nothing is started)', () => {
  const server = '  - mcp: { name: notes, command: [node, ./never-started.mjs] }';

  it('accepts `<server>.<tool>` steps of a declared server without starting it', async () => {
    const checked = await check(flow(server, '  - { id: a, tool: notes.search, with: { query: x } }'));
    expect(checked.problems).toEqual([]);
    expect(checked.extensions!.servers.map((entry) => entry.declaration.name)).toEqual(['notes']);
  });

  it('still refuses an undeclared namespace and suggests the declared one', async () => {
    const checked = await check(flow(server, '  - { id: a, tool: note.search }'));
    expect(checked.problems).toEqual([expect.stringContaining('unknown tool "note.search"; did you mean "notes.search"?')]);
  });

  it('refuses two servers with one name', async () => {
    const checked = await check(flow(`${server}\n${server}`, '  - { id: a, tool: echo, with: { value: 1 } }'));
    expect(checked.problems).toEqual([expect.stringMatching(/^flow\.yml:5:\d+: MCP server name notes is used twice/)]);
  });
});
