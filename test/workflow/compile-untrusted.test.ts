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
    ['a case conversion of an untrusted input', 'exec', 'command', "\"${{ rho_kebabcase(rho_replace(inputs.title, 'a', 'b')) }}\"", /inputs\.title is marked untrusted/],
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
    ['a trusted value chosen by an untrusted key', '"echo ${{ fromJSON(\'{}\')[inputs.title] }}"'],
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
    const pending = compileWorkflow(source!, withoutServer, { pendingServers: ['issues'] });
    expect(pending.problems).toEqual([]);
    // The step whose script reads the server's result waits for the server to be checked; the others do not.
    expect(pending.workflow!.steps.map((step) => [step.id, step.checkedWithServers])).toEqual([
      ['fetch', undefined],
      ['issue', undefined],
      ['run', ['issues']],
    ]);
    expect(problemsOf(text)).toEqual([expect.stringMatching(/steps\.issue is a result of issues\.get/)]);
  });
});

describe('template injection through an interpreter’s code', () => {
  const untrusted = (step: string, policy = '') => `version: 1\nname: t\ninputs:\n  t: { untrusted: true }\n${policy}steps:\n${step}`;

  it.each([
    [
      'node -e',
      '  - exec: node -e "${{ inputs.t }}"',
      /exec args\.1 would run text from outside the workflow \(inputs\.t is marked untrusted: true\): it is code node runs \(-e\)/,
    ],
    ['sh -c', `  - exec: sh -c "\${{ inputs.t }}"`, /it is the code sh runs \(-c\)/],
    ['bash -ec', `  - exec: bash -ec "\${{ inputs.t }}"`, /it is the code bash runs \(-c\)/],
    ['python3 -c', `  - exec: python3 -c "\${{ inputs.t }}"`, /it is code python3 runs \(-c\)/],
    ['perl -e', `  - exec: perl -e "\${{ inputs.t }}"`, /it is code perl runs \(-e\)/],
    ['ruby -e', `  - exec: ruby -e "\${{ inputs.t }}"`, /it is code ruby runs \(-e\)/],
    ['deno eval', `  - exec: deno eval "\${{ inputs.t }}"`, /it is the script deno runs/],
    ['php -r', `  - exec: php -r "\${{ inputs.t }}"`, /it is code php runs \(-r\)/],
    ['an awk program', `  - exec: awk "\${{ inputs.t }}" file.txt`, /it is the script awk runs/],
    ['env … sh -c', `  - exec: env A=1 sh -c "\${{ inputs.t }}"`, /it is the code sh runs \(-c\)/],
    ['an option word', `  - exec: node "\${{ inputs.t }}" build.js`, /it is the script node runs, or an option of it, which may run code/],
    ['a script path', `  - { tool: process_start, with: { name: p, command: python3, args: ["\${{ inputs.t }}"] } }`, /process_start args\.0 .*it is the script python3 runs/],
  ])('refuses untrusted text as %s', (_name, step, message) => {
    const problems = problemsOf(untrusted(step));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
    expect(problems[0]).toMatch(/pass it to the program through env: instead/);
  });

  it.each([
    ['after python3 -c CODE', `  - exec: python3 -c "import sys; print(sys.argv[1])" "\${{ inputs.t }}"`],
    ['after sh -c CODE NAME', `  - exec: sh -c 'echo "$1"' sh "\${{ inputs.t }}"`],
    ['after a script', `  - exec: node build.js "\${{ inputs.t }}"`],
    ['as an argument of a program that runs none', `  - exec: git commit -m "\${{ inputs.t }}"`],
  ])('allows untrusted text as data %s', (_name, step) => {
    expect(problemsOf(untrusted(step))).toEqual([]);
  });
});

describe('output of a process that can reach the network', () => {
  const fetched = (policy: string) => `version: 1
name: t
policy:
${policy}
steps:
  - { id: fetch, exec: curl -s http://127.0.0.1/title }
  - { id: show, shell: 'echo \${{ steps.fetch.output }}' }
`;

  it.each([
    [
      'a network rule',
      '  allow: ["process(curl)", "network(127.0.0.1)", shell]',
      /steps\.fetch is what a process printed, and processes can reach the network \(the rule network\(127\.0\.0\.1\)\)/,
    ],
    ['an ask rule', '  allow: ["process(curl)", shell]\n  ask: [network]', /the rule network\)/],
    ['the sandbox off', '  allow: ["process(curl)", shell]\n  sandbox: off', /processes run unconfined \(sandbox: off\)/],
  ])('is untrusted under %s', (_name, policy, why) => {
    const problems = problemsOf(fetched(policy));
    expect(problems).toEqual([expect.stringMatching(/^\d+:\d+: shell script would run text from outside the workflow/)]);
    expect(problems[0]).toMatch(why);
  });

  it('is trusted when no process can reach the network, and the run’s flags count', async () => {
    const text = fetched('  allow: ["process(curl)", shell]');
    expect(problemsOf(text)).toEqual([]);
    const { source } = WorkflowSource.parse('w.yml', text);
    const flagged = compileWorkflow(source!, tools, { processNetwork: 'processes can reach the network (the rule network)' }).problems;
    expect(flagged.map((problem) => problem.message)).toEqual([expect.stringMatching(/steps\.fetch is what a process printed/)]);
  });
});
