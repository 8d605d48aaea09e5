import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/host/registry.js';
import { builtinTools } from '../../src/tools/index.js';
import { calledFileProblems } from '../../src/workflow/called-file.js';
import { compileWorkflow } from '../../src/workflow/compile.js';
import { workflowSchema } from '../../src/workflow/schema.js';
import { WorkflowSource } from '../../src/workflow/source.js';

const tools = new ToolRegistry(builtinTools());

function problemsOf(env: string): string[] {
  const { source } = WorkflowSource.parse('w.yml', `version: 1\nname: t\npolicy:\n  env: ${env}\nsteps:\n  - { id: a, tool: echo, with: { value: 1 } }\n`);
  return compileWorkflow(source!, tools).problems.map((problem) => `${problem.line}:${problem.col}: ${problem.message}`);
}

describe('policy.env', () => {
  it('grants names and prefixes that change nothing about what runs', () => {
    expect(problemsOf('[DATABASE_URL, APP_*, GREETING]')).toEqual([]);
  });

  it.each([
    ['NODE_OPTIONS', /4:\d+: NODE_OPTIONS changes what a program runs; grant it in the rule of the program that needs it \(process\(NODE_OPTIONS=VALUE program\)\)/],
    ['TAR_OPTIONS', /TAR_OPTIONS changes what a program runs/],
    ['ld_preload', /ld_preload changes what a program runs/],
    ['GIT_*', /GIT_\* covers variables that change what a program runs/],
    ['NPM_*', /NPM_\* covers variables that change what a program runs/],
  ])('refuses %s, which covers a variable known to change what runs', (entry, message) => {
    expect(problemsOf(`[${entry}]`)).toEqual([expect.stringMatching(message)]);
  });

  it('takes names or a prefix and *, nothing else', () => {
    expect(workflowSchema.safeParse({ version: 1, name: 't', policy: { env: ['A*B'] }, steps: [] }).success).toBe(false);
    expect(workflowSchema.safeParse({ version: 1, name: 't', policy: { env: ['A B'] }, steps: [] }).success).toBe(false);
    // Every variable at once is the unrestricted process rule's to grant.
    expect(problemsOf('["*"]')).toEqual([expect.stringMatching(/policy\.env\.0: a variable name, or a prefix and \* \(APP_\*\)/)]);
  });

  it('cannot be set by a called file: the calling run grants the environment', () => {
    const { source } = WorkflowSource.parse('lib.yml', 'version: 1\nname: lib\npolicy:\n  env: [APP_*]\nsteps:\n  - { id: a, tool: echo, with: { value: 1 } }\n');
    const file = workflowSchema.parse(source!.toData());
    expect(calledFileProblems(source!, file).map((problem) => problem.message)).toEqual([
      'lib.yml is called by a uses: step and cannot set policy.env (the calling run grants the variables processes may be given); a called file may only add deny and ask rules',
    ]);
  });
});
