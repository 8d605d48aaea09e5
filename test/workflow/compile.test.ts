import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from '../../src/host/registry.js';
import { defineTool } from '../../src/host/tool.js';
import { compileWorkflow } from '../../src/workflow/compile.js';
import { WorkflowSource } from '../../src/workflow/source.js';
import { echoTool } from '../../src/tools/echo.js';
import { narrowWritable, planConfinement } from '../../src/host/confinement/index.js';
import { Policy } from '../../src/host/policy.js';

const countTool = defineTool({
  name: 'count',
  description: 'test tool',
  schema: z.strictObject({ n: z.number().int() }),
  async run() {
    return { text: '' };
  },
});
const tools = new ToolRegistry([echoTool, countTool]);

/** The source text at a problem's line:col, to check that a problem points at the right token. */
function textAt(source: string, problem: string): string {
  const [line, col] = problem.split(':').map(Number) as [number, number];
  return source.split('\n')[line - 1]!.slice(col - 1);
}

function problemsOf(text: string): string[] {
  const parsed = WorkflowSource.parse('w.yml', text);
  if (!parsed.source) return parsed.problems.map((p) => `${p.line}:${p.col}: ${p.message}`);
  return compileWorkflow(parsed.source, tools).problems.map((p) => `${p.line}:${p.col}: ${p.message}`);
}

const header = 'version: 1\nname: t\n';

describe('workflow validation', () => {
  it('accepts a valid workflow and compiles dependencies from needs and expressions', () => {
    const parsed = WorkflowSource.parse(
      'w.yml',
      `${header}steps:
  - { id: a, tool: echo, with: { value: 1 } }
  - { id: b, tool: echo, with: { value: 2 } }
  - id: c
    needs: a
    tool: echo
    with: { value: "\${{ steps.b.output }}" }
  - id: d
    if: \${{ always() }}
    tool: count
    with: { n: 3 }
`,
    );
    const { workflow, problems } = compileWorkflow(parsed.source!, tools);
    expect(problems).toEqual([]);
    expect(workflow!.steps.map((s) => s.dependencies)).toEqual([[], [], [0, 1], []]);
    expect(workflow!.steps[2]!.withHasExpressions).toBe(true);
    expect(workflow!.steps[3]!.conditionUsesStatus).toBe(true);
  });

  it('reports YAML syntax errors with their position', () => {
    expect(problemsOf('version: 1\nname: [unclosed\n')[0]).toMatch(/^\d+:\d+: /);
    expect(problemsOf('version: 1\nversion: 2\n')[0]).toBe('2:1: duplicate key "version": a key may appear only once in a map');
  });

  it('reports every schema problem in one pass, at the offending key or value', () => {
    const problems = problemsOf(`version: 2
name: t
surprise: true
steps:
  - id: Bad_Id
    tool: echo
`);
    expect(problems).toContain(
      '3:1: unknown key "surprise" (expected one of: version, name, description, workspace, max_parallel, inputs, env, env_file, secrets, host_env, defaults, policy, remote_cache, hooks, tools, steps, sequential, outputs, tasks)',
    );
    expect(problems.some((p) => p.startsWith('1:10: version'))).toBe(true);
    expect(problems.some((p) => p.startsWith('5:9: steps.0.id'))).toBe(true);
  });

  it('rejects duplicate ids, references to later or unknown steps, and self references', () => {
    const text = `${header}steps:
  - { id: a, tool: echo, with: { value: "\${{ steps.b.output }}" } }
  - { id: b, tool: echo, needs: [a, zz] }
  - { id: b, tool: echo, needs: b }
`;
    const problems = problemsOf(text);
    const find = (pattern: RegExp) => problems.find((p) => pattern.test(p))!;
    expect(textAt(text, find(/step "b" comes later; a step can only refer to earlier steps/))).toMatch(/^"\$\{\{ steps\.b/);
    expect(textAt(text, find(/unknown step "zz"/))).toMatch(/^zz\b/);
    expect(textAt(text, find(/duplicate step id "b" \(first used by step 2\)/))).toMatch(/^b, tool/);
    expect(problemsOf(`${header}steps:\n  - { id: a, tool: echo, needs: a }\n`)).toEqual(['4:33: step "a" cannot depend on itself']);
  });

  it('suggests the closest tool name for an unknown tool', () => {
    expect(problemsOf(`${header}steps:\n  - { id: a, tool: ecoh }\n`)).toEqual(['4:20: unknown tool "ecoh"; did you mean "echo"?']);
  });

  it('checks literal arguments against the tool schema, and defers those holding expressions', () => {
    expect(problemsOf(`${header}steps:\n  - { id: a, tool: count, with: { n: "3" } }\n`)[0]).toMatch(/^4:33: invalid arguments for count: n: /);
    expect(problemsOf(`${header}steps:\n  - { id: a, tool: count, with: { n: "\${{ 1 }}", extra: 1 } }\n`)).toEqual([]);
  });

  it('locates expression errors at the character inside the value', () => {
    const problems = problemsOf(`${header}steps:\n  - id: a\n    tool: echo\n    with: { value: "x \${{ 1 + }}" }\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^6:\d+: invalid expression/);
    const col = Number(/^6:(\d+)/.exec(problems[0]!)![1]);
    expect(col).toBeGreaterThan(21);
  });

  it('rejects undeclared inputs, secrets and env, and malformed policy rules', () => {
    const text = `${header}policy:
  allow: ["write(../x)", "teleport"]
steps:
  - { id: a, tool: echo, with: { value: "\${{ inputs.nope }}\${{ secrets.S }}" } }
`;
    const problems = problemsOf(text);
    const find = (pattern: RegExp) => problems.find((p) => pattern.test(p))!;
    expect(textAt(text, find(/invalid rule "write\(\.\.\/x\)"/))).toMatch(/^"write/);
    expect(textAt(text, find(/invalid rule "teleport": unknown class/))).toMatch(/^"teleport"/);
    expect(textAt(text, find(/inputs\.nope is not declared under "inputs:"/))).toMatch(/^"\$\{\{ inputs/);
    expect(find(/secrets\.S is not declared under "secrets:"/)).toBeDefined();
  });

  it('matches declared names without regard to case, as expressions read them', () => {
    const text = `${header}inputs:\n  tag: {}\nsteps:\n  - { id: a, tool: echo, with: { value: "\${{ inputs.TAG }}" } }\n  - { id: b, tool: echo, with: { value: "\${{ steps.A.output }}" } }\n`;
    const parsed = WorkflowSource.parse('w.yml', text);
    const { workflow, problems } = compileWorkflow(parsed.source!, tools);
    expect(problems).toEqual([]);
    expect(workflow!.steps[1]!.dependencies).toEqual([0]);
  });

  it('reports unknown contexts and functions at their position, and accepts the contexts it is given', () => {
    const text = `${header}steps:\n  - { id: a, tool: echo, with: { value: "\${{ matrix.os }}" } }\n  - { id: b, tool: echo, with: { value: "\${{ trim(inputs) }}" } }\n`;
    const problems = problemsOf(text);
    expect(problems).toHaveLength(2);
    expect(textAt(text, problems[0]!)).toMatch(/^matrix\.os/);
    expect(problems[0]).toMatch(/Unrecognized named-value: 'matrix'/);
    expect(textAt(text, problems[1]!)).toMatch(/^trim\(/);
    expect(problems[1]).toMatch(/Unrecognized function: 'trim'; available: .*rho_trim\(\)/);
    const parsed = WorkflowSource.parse('w.yml', text.replace(/\n {2}- \{ id: b.*\n/, '\n'));
    expect(compileWorkflow(parsed.source!, tools, { contexts: ['matrix'] }).problems).toEqual([]);
  });

  it('validates the hooks key with the hooks file schema', () => {
    const problems = problemsOf(`${header}hooks:\n  pre_tool_use:\n    - { command: [], colour: red }\nsteps:\n  - { id: a, tool: echo }\n`);
    expect(problems.some((p) => p.startsWith('5:22: unknown key "colour" (expected one of: '))).toBe(true);
    expect(problems.some((p) => /^5:\d+: hooks\.pre_tool_use\.0\.command/.test(p))).toBe(true);
  });

  it('still checks the valid steps when another part of the file is invalid', () => {
    const problems = problemsOf(`${header}steps:\n  - { id: a, tool: ecoh }\n  - { id: b, tool: echo, colour: red }\n  - { id: c, tool: echo, needs: [b, a] }\n`);
    expect(problems).toEqual([
      '5:26: unknown key "colour" (expected one of: id, name, exec, shell, env, cwd, ok_exit_codes, tool, uses, with, needs, if, async, continue_on_error, timeout, retry, matrix, platforms, fail_fast, resources, writes, sources, generates)',
      '4:20: unknown tool "ecoh"; did you mean "echo"?',
    ]);
  });
});

describe('tasks', () => {
  const text = `${header}inputs:
  mode: { type: string }
steps:
  - { id: a, tool: echo }
tasks:
  build:
    inputs:
      target: { type: string }
    steps:
      - { id: a, tool: echo }
      - { id: b, tool: echo, needs: a, with: { value: "\${{ inputs.target }} \${{ inputs.mode }}" } }
  lint:
    steps:
      - { id: c, tool: echo, needs: b, with: { value: "\${{ inputs.target }}" } }
`;

  it('compiles the task asked for, its ids and references its own', () => {
    const { source } = WorkflowSource.parse('w.yml', text.replace(/needs: b, /, ''));
    const compiled = compileWorkflow(source!, tools, { task: 'build' });
    expect(compiled.problems.map((p) => p.message)).toEqual(['inputs.target is not declared under "inputs:"']);
    const valid = WorkflowSource.parse('w.yml', text.replace(/ {2}lint:[\s\S]*$/, ''));
    const { workflow } = compileWorkflow(valid.source!, tools, { task: 'build' });
    expect(workflow!.task).toBe('build');
    expect(Object.keys(workflow!.inputs)).toEqual(['mode', 'target']);
    expect(workflow!.steps.map((step) => [step.id, step.dependencies])).toEqual([
      ['a', []],
      ['b', [0]],
    ]);
    expect(compileWorkflow(valid.source!, tools).workflow!.steps.map((step) => step.id)).toEqual(['a']);
  });

  it('checks each task against its own steps and inputs', () => {
    expect(problemsOf(text)).toEqual(['16:37: unknown step "b"', '16:55: inputs.target is not declared under "inputs:"']);
  });

  it('throws a usage error naming the closest task for an unknown name', () => {
    const valid = WorkflowSource.parse('w.yml', text.replace(/ {2}lint:[\s\S]*$/, ''));
    expect(() => compileWorkflow(valid.source!, tools, { task: 'biuld' })).toThrow('w.yml has no task "biuld"; did you mean "build"? (tasks: build)');
  });

  it('needs steps or tasks', () => {
    expect(problemsOf(header)).toEqual(['1:1: a workflow needs steps: (its default task) or tasks:']);
  });
});

describe('compiled steps and the released source', () => {
  it('carries each step’s line, so a run needs no positions once its source is released', () => {
    const text = 'version: 1\nname: lines\nsteps:\n  - id: a\n    tool: echo\n    with: { value: x }\n\n  - id: b\n    tool: echo\n    with: { value: y }\n';
    const { source } = WorkflowSource.parse('w.yml', text);
    const { workflow } = compileWorkflow(source!, tools);
    expect(workflow!.steps.map((step) => [step.id, step.line])).toEqual([
      ['a', 4],
      ['b', 8],
    ]);
    source!.release();
    expect(() => source!.position(['steps', 0])).toThrow(/released/);
    expect(() => source!.toData()).toThrow(/released/);
    expect(source!.directory).toBe(process.cwd());
  });
});

describe('short steps', () => {
  const execTools = new ToolRegistry([
    echoTool,
    defineTool({
      name: 'exec',
      description: 'test exec',
      schema: z.strictObject({ command: z.string(), args: z.array(z.string()).optional(), cwd: z.string().optional() }),
      async run() {
        return { text: '' };
      },
    }),
  ]);
  const compiled = (text: string, task?: string) => {
    const parsed = WorkflowSource.parse('w.yml', `${header}${text}`);
    return compileWorkflow(parsed.source!, execTools, task === undefined ? {} : { task });
  };

  it('names steps after their program, tool or task, never taking an id a step gives itself', () => {
    const { workflow, problems } = compiled(
      `tasks:
  build: [cargo build]
  all:
    - cargo fmt
    - ./bin/forbid --all
    - { id: cargo, exec: cargo test }
    - "\${{ inputs.tool }} run"
    - { tool: echo, with: { value: 1 } }
    - uses: build
    - { exec: cargo doc, needs: cargo-2 }
inputs: { tool: { default: cargo } }
`,
      'all',
    );
    expect(problems).toEqual([]);
    expect(workflow!.steps.map((step) => step.id)).toEqual(['cargo-2', 'forbid', 'cargo', 'exec', 'echo', 'build/cargo', 'build', 'cargo-3']);
    expect(workflow!.steps.at(-1)!.dependencies).toEqual([0]);
    expect(workflow!.steps.at(-1)!.with).toEqual({ command: 'cargo', args: ['doc'] });
    expect(workflow!.steps[1]!.with).toEqual({ command: './bin/forbid', args: ['--all'] });
  });

  it('locates problems inside a task written as a list, and refuses exec: with shell:', () => {
    const text = `tasks:
  a:
    - { id: x, tool: ecoh }
    - { exec: ls, shell: ls }
    - { tool: echo, cwd: src, with: { value: 1 } }
`;
    expect(problemsOf(`${header}${text}`)).toEqual([
      '6:19: a step runs exec: or shell:, not both',
      '7:21: cwd: belongs to an exec: or shell: step; in a tool: step it goes under with:',
      '5:22: unknown tool "ecoh"; did you mean "echo"?',
    ]);
  });

  it('points a problem inside a command line’s expression at the line', () => {
    const parsed = WorkflowSource.parse(
      'w.yml',
      `${header}tasks:
  a:
    - echo \${{ inputs.nope }}
    - exec: echo \${{ 1 + }}
`,
    );
    const problems = compileWorkflow(parsed.source!, execTools).problems.map((p) => `${p.line}:${p.col}: ${p.message}`);
    expect(problems[0]).toBe('5:7: inputs.nope is not declared under "inputs:"');
    expect(problems[1]).toMatch(/^6:13: invalid expression: /);
  });
});

describe('home-relative paths', () => {
  const text = `${header}policy:
  granted_roots: [~/.pyenv, ~bob/tools]
  allow: ["read(~/.pyenv/**)", "read(~alice/x/**)"]
steps:
  - id: a
    tool: echo
    with: { value: 1 }
    writes: ["~/.cache/x/**", "~carol/y"]
`;

  function problems(homeDirectory: string | null | undefined): string[] {
    const parsed = WorkflowSource.parse('w.yml', text);
    return compileWorkflow(parsed.source!, tools, homeDirectory === undefined ? {} : { homeDirectory }).problems.map((p) => `${p.line}:${p.col}: ${p.message}`);
  }

  it('reports each ~ that names another user at its position', () => {
    const found = problems('/home/me');
    expect(found).toHaveLength(3);
    expect(textAt(text, found.find((problem) => problem.includes('~bob'))!)).toMatch(/^~bob\/tools/);
    expect(textAt(text, found.find((problem) => problem.includes('~alice'))!)).toMatch(/^"read\(~alice/);
    expect(textAt(text, found.find((problem) => problem.includes('~carol'))!)).toMatch(/^"~carol\/y"/);
  });

  it('reports every ~ where the user has no home, and only the form where the home is not known', () => {
    expect(problems(null).filter((problem) => problem.includes('this user has no home directory'))).toHaveLength(3);
    expect(problems(undefined)).toHaveLength(3);
  });
});

describe('~ in the writes: steps inherit', () => {
  const text = `${header}defaults:
  writes: ["~/.cache/x/**", "~carol/a"]
tasks:
  build:
    writes: ["~dave/b"]
    steps:
      - { id: a, tool: echo, with: { value: 1 } }
  test:
    defaults: { writes: [dist/**, "~erin/c"] }
    steps:
      - { id: a, tool: echo, with: { value: 1 } }
`;

  it('is refused where it is written, before any step runs, with the words a run refuses it in', () => {
    const parsed = WorkflowSource.parse('w.yml', text);
    const problems = compileWorkflow(parsed.source!, tools, { homeDirectory: '/home/me' }).problems.map((p) => `${p.line}:${p.col}: ${p.message}`);
    expect(problems.map((problem) => textAt(text, problem))).toEqual(['"~carol/a"]', '"~dave/b"]', '"~erin/c"] }']);
    const workspace = '/work/project';
    const plan = planConfinement({ policy: Policy.fromText({ allow: ['write(**)'] }), workspaceRoot: workspace, grantedRoots: [], homeDirectories: [] });
    for (const [problem, glob] of problems.map((problem, index) => [problem, ['~carol/a', '~dave/b', '~erin/c'][index]!] as const)) {
      expect(() => narrowWritable(plan, [glob], workspace, '/home/me')).toThrow(problem.replace(/^\d+:\d+: /, ''));
    }
    expect(problems[0]).toMatch(/^4:29: writes: "~carol\/a": "~carol" names another user's home: only ~ \(yours\) is expanded/);
  });

  it('is refused everywhere for a user without a home', () => {
    const parsed = WorkflowSource.parse('w.yml', text);
    const problems = compileWorkflow(parsed.source!, tools, { homeDirectory: null }).problems.map((p) => `${p.line}:${p.col}: ${p.message}`);
    expect(problems.filter((problem) => problem.includes('this user has no home directory')).map((problem) => textAt(text, problem))).toEqual(['"~/.cache/x/**", "~carol/a"]']);
    expect(problems).toHaveLength(4);
  });
});
