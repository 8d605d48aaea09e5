import { describe, expect, it } from 'vitest';
import { parseToolArguments, resolveTaskTool, taskTools } from '../../src/cli/mcp-serve/task-tools.js';
import { workflowSchema } from '../../src/workflow/schema.js';

const file = workflowSchema.parse({
  version: 1,
  name: 'tools',
  inputs: { level: { type: 'choice', options: ['low', 'high'], default: 'low' } },
  steps: [{ tool: 'echo', with: { value: 1 } }],
  tasks: {
    build: { inputs: { jobs: { type: 'number', required: true }, files: { type: 'array' }, quick: false }, steps: [{ tool: 'echo', with: { value: 1 } }] },
    _secret: [{ tool: 'echo', with: { value: 1 } }],
  },
});

describe('tasks as MCP tools', () => {
  it('offers the default task and the public tasks, each with the file inputs and its own', () => {
    const warnings: string[] = [];
    const tools = taskTools('tools.yml', file, (line) => warnings.push(line));
    expect(tools.map((tool) => tool.name)).toEqual(['default', 'build']);
    expect(Object.keys(tools[1]!.inputSchema.properties as object)).toEqual(['level', 'jobs', 'files', 'quick']);
    expect(warnings).toEqual([]);
  });

  it('turns arguments into -i entries: an array one entry per item, numbers and booleans as text', () => {
    const build = resolveTaskTool(
      taskTools('tools.yml', file, () => {}),
      'build',
    );
    expect(parseToolArguments(build, { jobs: 4, files: ['a=b', 'c'], quick: true })).toEqual(['level=low', 'jobs=4', 'files=a=b', 'files=c', 'quick=true']);
  });

  it('refuses an unknown argument, a wrong type, a value outside the choices and a missing required one', () => {
    const build = resolveTaskTool(
      taskTools('tools.yml', file, () => {}),
      'build',
    );
    for (const raw of [{ jobs: 1, other: 1 }, { jobs: '4' }, { jobs: 1, level: 'mid' }, {}, [1]]) {
      expect(() => parseToolArguments(build, raw)).toThrow(/^arguments of build: /);
    }
  });

  it('leaves the default task out when a task is named default, and refuses a tool it does not serve', () => {
    const warnings: string[] = [];
    const named = workflowSchema.parse({ version: 1, name: 'x', steps: [{ tool: 'echo', with: { value: 1 } }], tasks: { default: [{ tool: 'echo', with: { value: 2 } }] } });
    const tools = taskTools('x.yml', named, (line) => warnings.push(line));
    expect(tools.map((tool) => tool.task)).toEqual(['default']);
    expect(warnings).toEqual(['rho: the default task of x.yml is not offered: a task is named default']);
    expect(() => resolveTaskTool(tools, '_secret')).toThrow('no task "_secret" is served (tools: default)');
  });
});
