import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from '../../src/host/registry.js';
import { defineTool } from '../../src/host/tool.js';
import { builtinTools } from '../../src/tools/index.js';
import { compileWorkflow } from '../../src/workflow/compile.js';
import { WorkflowSource } from '../../src/workflow/source.js';

/** Stands for an MCP tool whose server does not declare it closed-world. */
const openWorldTool = defineTool({
  name: 'issues.get',
  description: 'test tool',
  schema: z.strictObject({ id: z.number() }),
  untrustedContent: true,
  async run() {
    return { text: '' };
  },
});
const tools = new ToolRegistry([...builtinTools(), openWorldTool]);

function problemsOf(text: string, registry = tools): string[] {
  const { source } = WorkflowSource.parse('w.yml', text);
  return compileWorkflow(source!, registry).problems.map((p) => `${p.line}:${p.col}: ${p.message}`);
}

const workflow = (steps: string, inputs = '  title: { untrusted: true }\n  tag: {}\n') =>
  `version: 1\nname: t\ninputs:\n${inputs}env:\n  TITLE: "\${{ inputs.title }}"\n  MODE: "x-\${{ inputs.tag }}"\nsteps:\n  - { id: fetch, tool: http_request, with: { url: "http://127.0.0.1/" } }\n${steps}`;

describe('template injection', () => {
  it.each([
    ['an untrusted input in a script', 'shell', 'script', '"echo ${{ inputs.title }}"', /inputs\.title is marked untrusted: true/],
    ['an http_request result in a script', 'shell', 'script', '"echo ${{ steps.fetch.data.body }}"', /steps\.fetch is a result of http_request/],
    ['an open-world tool result in a command', 'exec', 'command', '"${{ steps.issue.output }}"', /steps\.issue is a result of issues\.get/],
    ['a value computed from an untrusted input', 'shell', 'script', `"echo \${{ format('{0}!', inputs.TITLE) || 'none' }}"`, /inputs\.title is marked untrusted/],
    ['a case conversion of an untrusted input', 'exec', 'command', '"${{ rho_kebabcase(rho_replace(inputs.title, \'a\', \'b\')) }}"', /inputs\.title is marked untrusted/],
    ['a workflow env value computed from an untrusted input', 'shell', 'script', '"echo ${{ env.TITLE }}"', /env\.TITLE is computed from untrusted values \(inputs\.title/],
    ['a result of a step that read an untrusted value', 'shell', 'script', '"echo ${{ steps.copy.output }}"', /steps\.copy is computed from untrusted values \(steps\.fetch/],
    ['a questionnaire text answer', 'shell', 'script', '"echo ${{ steps.ask.data.answers.name }}"', /steps\.ask holds text a person typed/],
    ['a whole questionnaire result', 'exec', 'command', '"${{ steps.ask.output }}"', /steps\.ask holds text a person typed/],
  ])('refuses %s, saying to pass it through env:', (_name, tool, argument, value, why) => {
    const text = workflow(`  - { id: issue, tool: issues.get, with: { id: 1 } }
  - { id: copy, tool: echo, with: { value: "\${{ steps.fetch.output }}" } }
  - id: ask
    tool: questionnaire
    with: { questions: [{ id: name, question: Name? }, { id: go, question: Go?, type: confirm }] }
  - { id: run, tool: ${tool}, with: { ${argument}: ${value}, args: [] } }
`).replace(', args: []', tool === 'exec' ? ', args: []' : '');
    const problems = problemsOf(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^16:\\d+: ${tool} ${argument} would run text from outside the workflow`));
    expect(problems[0]).toMatch(why);
    expect(problems[0]).toMatch(/pass it (to the program )?through env: instead/);
  });

  it.each([
    ['a trusted input', '"echo ${{ inputs.tag }}"'],
    ['a workflow env value computed from trusted inputs', '"echo ${{ env.MODE }}"'],
    ['a step status', '"echo ${{ steps.fetch.status }}"'],
    ['a test of an untrusted value, which yields a boolean', `"echo \${{ contains(steps.fetch.output, 'ok') && 'yes' }} \${{ inputs.title == 'x' }} \${{ !inputs.title }}"`],
    ['a closed questionnaire answer', '"echo ${{ steps.ask.data.answers.go }} ${{ steps.ask.data.source }}"'],
    ['a trusted value chosen by an untrusted key', "\"echo ${{ fromJSON('{}')[inputs.title] }}\""],
  ])('allows %s in a script', (_name, value) => {
    const text = workflow(`  - id: ask
    tool: questionnaire
    with: { questions: [{ id: name, question: Name? }, { id: go, question: Go?, type: confirm }] }
  - { id: run, tool: shell, with: { script: ${value} } }
`);
    expect(problemsOf(text)).toEqual([]);
  });

  it('allows untrusted values in env: and in the arguments of exec, where they are data', () => {
    const text = workflow(`  - id: run
    tool: exec
    with: { command: echo, args: ["\${{ steps.fetch.output }}"], env: { TITLE: "\${{ inputs.title }}" } }
  - { id: script, tool: shell, with: { script: 'echo "$TITLE"', env: { TITLE: "\${{ steps.fetch.data.body }}" } } }
`);
    expect(problemsOf(text)).toEqual([]);
  });

  it('decides on a server tool only once the server is running and its tools are known', () => {
    const text = workflow(`  - { id: issue, tool: issues.get, with: { id: 1 } }
  - { id: run, tool: shell, with: { script: "echo \${{ steps.issue.output }}" } }
`);
    const withoutServer = new ToolRegistry(builtinTools());
    const { source } = WorkflowSource.parse('w.yml', text);
    expect(compileWorkflow(source!, withoutServer, { pendingServers: ['issues'] }).problems).toEqual([]);
    expect(problemsOf(text)).toEqual([expect.stringMatching(/steps\.issue is a result of issues\.get/)]);
  });
});
