import { describe, expect, it } from 'vitest';
import { compileWorkflow, unknownTaskError } from '../../src/workflow/compile.js';
import { builtinRegistry } from '../../src/workflow/builtin-registry.js';
import type { CompileOptions } from '../../src/workflow/compile.js';
import type { CompiledWorkflow } from '../../src/workflow/model.js';
import { platformSkipReason } from '../../src/workflow/platforms.js';
import { workflowSchema } from '../../src/workflow/schema.js';
import { aliasTarget, isPrivateTask, publicTaskNames, resolveTaskName } from '../../src/workflow/task-names.js';
import { WorkflowSource } from '../../src/workflow/source.js';

// What a task declares for all its steps, as the compiler hands it to the runner: needs:, run:,
// platforms:, env:, writes:, sources:/generates:, aliases and private tasks.
const tools = builtinRegistry();

function compile(text: string, options: CompileOptions = {}): { workflow?: CompiledWorkflow; problems: string[] } {
  const parsed = WorkflowSource.parse('w.yml', `version: 1\nname: t\n${text}`);
  if (!parsed.source) throw new Error(parsed.problems.map((problem) => problem.message).join('; '));
  const { workflow, problems } = compileWorkflow(parsed.source, tools, options);
  return { ...(workflow && { workflow }), problems: problems.map((problem) => `${problem.line}:${problem.col}: ${problem.message}`) };
}

function stepsOf(text: string, options: CompileOptions) {
  const { workflow, problems } = compile(text, options);
  expect(problems).toEqual([]);
  return workflow!.steps;
}

const echo = (id: string, value = id) => `      - { id: ${id}, tool: echo, with: { value: ${value} } }\n`;

describe('needs: on a task', () => {
  const text = `tasks:\n  setup:\n    steps:\n${echo('s')}  lint:\n    steps:\n${echo('l')}  check:\n    needs: [setup, lint]\n    steps:\n${echo('lint', 'own')}${echo('after')}`;

  it('runs each needed task as a uses: step before every step of its own', () => {
    const steps = stepsOf(text, { task: 'check' });
    const byId = new Map(steps.map((step) => [step.id, step]));
    expect(steps.map((step) => step.id)).toEqual(['setup/s', 'setup', 'lint-2/l', 'lint-2', 'lint', 'after']);
    const needs = [byId.get('setup')!.index, byId.get('lint-2')!.index];
    for (const own of ['lint', 'after']) expect(byId.get(own)!.dependencies).toEqual(expect.arrayContaining(needs));
    // The needs themselves may run side by side.
    expect(byId.get('lint-2')!.dependencies).not.toContain(byId.get('setup')!.index);
  });

  it('takes one task as a string, and reports an unknown one where needs: names it', () => {
    expect(stepsOf(`tasks:\n  setup:\n${echo('s').slice(2)}  check:\n    needs: setup\n    steps:\n${echo('c')}`, { task: 'check' }).map((step) => step.id)).toEqual([
      'setup/s',
      'setup',
      'c',
    ]);
    const { problems } = compile(`tasks:\n  check:\n    needs: [stup]\n    steps:\n${echo('c')}`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^5:13: .*stup/);
  });
});

describe('run: once', () => {
  const file = (setup: string, uses: string) =>
    `tasks:\n  setup:\n${setup}    inputs:\n      level: one\n    steps:\n${echo('s', '"${{ inputs.level }}"')}  all:\n    steps:\n${uses}`;
  const use = (id: string, extra = '') => `      - { id: ${id}, uses: setup${extra} }\n`;
  const repeatsOf = (workflow: CompiledWorkflow) =>
    workflow.steps.flatMap((step) => (step.group?.kind === 'uses' ? [[step.id, step.group.repeats === undefined ? null : workflow.steps[step.group.repeats]!.id]] : []));

  it('runs a task used again with the same inputs once: the later use takes the first one’s outcome', () => {
    const { workflow } = compile(file('', `${use('a')}${use('b', ', with: { level: one }')}${use('c', ', with: { level: two }')}`), { task: 'all' });
    expect(repeatsOf(workflow!)).toEqual([
      ['a', null],
      ['b', 'a'],
      ['c', null],
    ]);
    // The repeat runs no step of its own and waits for the first use.
    const b = workflow!.steps.find((step) => step.id === 'b')!;
    expect(b.dependencies).toContain(workflow!.steps.find((step) => step.id === 'a')!.index);
    expect(workflow!.steps.map((step) => step.id)).not.toContain('b/s');
  });

  it('runs every use of a task with run: always, and every use that has an if:', () => {
    expect(repeatsOf(compile(file('    run: always\n', `${use('a')}${use('b')}`), { task: 'all' }).workflow!)).toEqual([
      ['a', null],
      ['b', null],
    ]);
    expect(repeatsOf(compile(file('', `${use('a')}${use('b', ', if: "${{ rho.os != \'plan9\' }}"')}`), { task: 'all' }).workflow!)).toEqual([
      ['a', null],
      ['b', null],
    ]);
  });

  it('refuses any other value of run:', () => {
    expect(compile(file('    run: twice\n', use('a'))).problems[0]).toMatch(/^5:10: /);
  });
});

describe('platforms:', () => {
  const text = `tasks:\n  win:\n    platforms: [windows]\n    steps:\n${echo('w')}  mixed:\n    steps:\n      - { id: mac, tool: echo, platforms: [macos], with: { value: m } }\n      - { id: unix, tool: echo, platforms: [unix], with: { value: u } }\n${echo('any')}`;
  const skips = (task: string, platform: NodeJS.Platform) => Object.fromEntries(stepsOf(text, { task, platform }).map((step) => [step.id, step.platformSkip ?? null]));

  it('skips a task’s steps on other platforms, saying why', () => {
    expect(skips('win', 'linux')).toEqual({ w: 'task win runs only on windows (this is linux)' });
    expect(skips('win', 'win32')).toEqual({ w: null });
  });

  it('skips a step on other platforms; unix is every one but windows', () => {
    expect(skips('mixed', 'darwin')).toEqual({ mac: null, unix: null, any: null });
    expect(skips('mixed', 'win32')).toEqual({ mac: 'it runs only on macos (this is windows)', unix: 'it runs only on unix (this is windows)', any: null });
    expect(skips('mixed', 'freebsd')).toEqual({ mac: 'it runs only on macos (this is freebsd)', unix: null, any: null });
  });

  it('gives the task’s reason first when both leave the platform out', () => {
    expect(platformSkipReason({ name: 'win', platforms: ['windows'] }, ['macos'], 'linux')).toBe('task win runs only on windows (this is linux)');
    expect(platformSkipReason({ name: undefined, platforms: undefined }, ['linux', 'macos'], 'darwin')).toBeUndefined();
  });

  it('takes only known platform names', () => {
    expect(compile(`tasks:\n  a:\n    platforms: [linux, darwin]\n    steps:\n${echo('a')}`).problems[0]).toMatch(/^5:24: /);
  });
});

describe('env: and writes: on a task', () => {
  const text = `tasks:\n  build:\n    env: { MODE: release, LEVEL: 2 }\n    writes: [dist/**]\n    steps:\n      - node build.js\n      - exec: node pack.js\n        env: { LEVEL: "3" }\n      - { id: narrow, exec: node x.js, writes: [tmp/**] }\n${echo('note')}`;

  it('gives every process step the task’s environment under its own, and its writes: unless the step has one', () => {
    const steps = stepsOf(text, { task: 'build' });
    expect(steps.map((step) => [step.id, step.with.env ?? null, step.writes ?? null])).toEqual([
      // A number is its text, as in the file's env:.
      ['node', { MODE: 'release', LEVEL: '2' }, ['dist/**']],
      ['node-2', { MODE: 'release', LEVEL: '3' }, ['dist/**']],
      ['narrow', { MODE: 'release', LEVEL: '2' }, ['tmp/**']],
      // A tool that runs no process has neither.
      ['note', null, null],
    ]);
  });

  it('reports a problem in a task’s env: value where the task writes it', () => {
    const { problems } = compile(`tasks:\n  build:\n    env: { WHO: "\${{ steps.nope.output }}" }\n    steps:\n      - node build.js\n`);
    expect(problems).toEqual(['5:17: unknown step "nope"']);
  });
});

describe('sources: and generates: on a task', () => {
  it('makes the whole task one up-to-date check', () => {
    const { workflow } = compile(`tasks:\n  build:\n    sources: [src/**]\n    generates: [dist/**]\n    steps:\n${echo('a')}`, { task: 'build' });
    expect(workflow!.check).toEqual({ sources: ['src/**'], generates: ['dist/**'] });
  });

  it('refuses generates: without sources:, and a glob that leaves the workspace', () => {
    const { problems } = compile(`tasks:\n  build:\n    generates: [dist/**]\n    steps:\n${echo('a')}  other:\n    sources: [../up/**]\n    steps:\n${echo('b')}`);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe('5:5: generates: goes with sources: (what the task reads decides whether it is up to date)');
    expect(problems[1]).toMatch(/^9:15: /);
  });
});

describe('aliases and private tasks', () => {
  const text = `tasks:\n  format:\n    aliases: [f, fmt]\n    steps:\n${echo('a')}  _python:\n    steps:\n${echo('p')}  helper:\n    private: true\n    steps:\n${echo('h')}  test:\n${echo('t').slice(2)}`;
  const file = () => workflowSchema.parse(WorkflowSource.parse('w.yml', `version: 1\nname: t\n${text}`).source!.toData());

  it('run a task by one of its aliases', () => {
    const { workflow } = compile(text, { task: 'fmt' });
    expect(workflow!.task).toBe('format');
    expect(resolveTaskName(file(), 'f')).toBe('format');
    expect(resolveTaskName(file(), 'format')).toBe('format');
    expect(aliasTarget(file(), 'f')).toBe('format');
    expect(aliasTarget(file(), 'format')).toBeUndefined();
    expect(resolveTaskName(file(), 'nope')).toBeUndefined();
  });

  it('refuse an alias that is a task’s name or another task’s alias', () => {
    const { problems } = compile(`tasks:\n  format:\n    aliases: [f, build]\n    steps:\n${echo('a')}  build:\n    aliases: [f]\n    steps:\n${echo('b')}`);
    expect(problems).toEqual(['5:18: alias build of task format is the name of a task', '9:15: alias f of task build is already an alias of task format']);
  });

  it('keep private tasks (a leading _, or private: true) out of what a person is offered, and still run them by name', () => {
    expect(isPrivateTask('_python', {})).toBe(true);
    expect(isPrivateTask('helper', { private: true })).toBe(true);
    expect(isPrivateTask('test', { private: false })).toBe(false);
    expect(publicTaskNames(file())).toEqual(['format', 'f', 'fmt', 'test']);
    expect(unknownTaskError('w.yml', file(), 'pyton').message).toBe('w.yml has no task "pyton" (tasks: format, test)');
    expect(compile(text, { task: '_python' }).workflow!.steps.map((step) => step.id)).toEqual(['p']);
  });

  it('take one leading _ only', () => {
    expect(compile(`tasks:\n  __x:\n${echo('a').slice(2)}`).problems).toEqual([
      '4:3: tasks.__x: task names use letters, digits, _ . : and -, starting with a letter or digit (or one _, for a private task)',
    ]);
  });
});

describe('a task that is not a list or a map', () => {
  it('is a problem at its place, not a crash', () => {
    const { problems } = compile('tasks:\n  a:\n  b: 3\n');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatch(/^4:5: tasks\.a: /);
  });
});
