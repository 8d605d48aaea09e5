import { describe, expect, it } from 'vitest';
import { HostError } from '../../src/host/errors.js';
import type { InputDeclaration } from '../../src/workflow/schema.js';
import { parameterUsage, taskArgumentEntries, taskParameters, type TaskArguments } from '../../src/workflow/task-parameters.js';

// `test-crate name [extra...]`: a required string, then a variadic array.
const testCrate: Record<string, InputDeclaration> = { name: { type: 'string', required: true }, extra: { type: 'array' } };
// `greet [who=world] [times=1]`: two optional parameters with defaults.
const greet: Record<string, InputDeclaration> = { who: { type: 'string', default: 'world' }, times: { type: 'number', default: 1 } };
// The file's input every task reads, beside the task's own.
const fileInputs: Record<string, InputDeclaration> = { mode: { type: 'string', default: 'debug' } };

function entries(own: Record<string, InputDeclaration>, given: Partial<TaskArguments>) {
  const task = given.task ?? 'test-crate';
  const commandLine: TaskArguments = { words: [], passThrough: [], inputs: [], invocation: `rho run ${task}`, task, ...given };
  return taskArgumentEntries(commandLine, taskParameters(own), { ...fileInputs, ...own });
}

function usageError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HostError);
    expect((error as HostError).kind).toBe('usage');
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('task parameters', () => {
  it('are the task’s own inputs in the order written; only a last array is variadic', () => {
    expect(taskParameters(testCrate).map(({ name, variadic }) => [name, variadic])).toEqual([
      ['name', false],
      ['extra', true],
    ]);
    const arrayFirst = taskParameters({ files: { type: 'array' }, name: { type: 'string' } });
    expect(arrayFirst.map((parameter) => parameter.variadic)).toEqual([false, false]);
  });

  it('read in a usage line as just shows them', () => {
    const usage = (declared: Record<string, InputDeclaration>) => taskParameters(declared).map(parameterUsage).join(' ');
    expect(usage(testCrate)).toBe('name [extra...]');
    expect(usage(greet)).toBe('[who=world] [times=1]');
    expect(usage({ target: { type: 'string' }, rest: { type: 'array', required: true } })).toBe('[target] rest...');
    expect(usage({ files: { type: 'array', default: ['a'] }, last: { type: 'boolean', default: false } })).toBe('[files] [last=false]');
  });
});

describe('rho run TASK ARG... as inputs', () => {
  it('fills the parameters in order, the variadic one taking the rest and what follows --', () => {
    expect(entries(testCrate, { words: ['biome_cli', 'a', 'b'], passThrough: ['--', 'c'] })).toEqual({
      inputs: ['name=biome_cli', 'extra=a', 'extra=b', 'extra=--', 'extra=c'],
      passThrough: [],
    });
  });

  it('leaves unset parameters to their defaults', () => {
    expect(entries(greet, { task: 'greet', words: ['rho'] }).inputs).toEqual(['who=rho']);
    expect(entries(greet, { task: 'greet', words: [] }).inputs).toEqual([]);
  });

  it('takes NAME=VALUE for any input the task reads, its own or the file’s, and fills the others in order', () => {
    expect(entries(greet, { task: 'greet', words: ['times=3', 'rho', 'mode=release'] }).inputs).toEqual(['times=3', 'mode=release', 'who=rho']);
  });

  it('takes -i NAME=VALUE as setting that parameter, so the next word fills the next one', () => {
    expect(entries(greet, { task: 'greet', inputs: ['who=rho'], words: ['2'] }).inputs).toEqual(['who=rho', 'times=2']);
    expect(entries(testCrate, { inputs: ['name=biome_cli'], words: ['x'] }).inputs).toEqual(['name=biome_cli', 'extra=x']);
  });

  it('passes a word NAME=VALUE whose NAME the task does not read as a value', () => {
    expect(entries(testCrate, { words: ['FOO=bar'] }).inputs).toEqual(['name=FOO=bar']);
  });

  it('hands what follows -- to the args input when no parameter is variadic', () => {
    expect(entries(greet, { task: 'greet', words: ['rho'], passThrough: ['--watch'] })).toEqual({ inputs: ['who=rho'], passThrough: ['--watch'] });
  });

  it('adds to an array input given by name more than once', () => {
    expect(entries(testCrate, { words: ['n', 'extra=a', 'extra=b'] }).inputs).toEqual(['extra=a', 'extra=b', 'name=n']);
  });

  it('refuses a missing required parameter with the usage line', () => {
    expect(usageError(() => entries(testCrate, {}))).toBe('task test-crate got 0 arguments but takes at least 1 (usage: rho run test-crate name [extra...])');
    const rest = { target: { type: 'string' }, rest: { type: 'array', required: true } } satisfies Record<string, InputDeclaration>;
    // Words fill in order: a required parameter after an optional one needs both.
    const late = { first: { type: 'string' }, second: { type: 'string', required: true } } satisfies Record<string, InputDeclaration>;
    expect(usageError(() => entries(late, { task: 'pair', words: ['x'] }))).toBe('task pair got 1 argument but takes 2 (usage: rho run pair [first] second)');
    expect(usageError(() => entries(rest, { task: 'pick', words: ['t'] }))).toBe('task pick got 1 argument but takes at least 2 (usage: rho run pick [target] rest...)');
  });

  it('refuses a word too many, saying how many the task takes', () => {
    expect(usageError(() => entries(greet, { task: 'greet', words: ['a', 'b', 'c'] }))).toBe(
      'task greet got 3 arguments but takes at most 2 (usage: rho run greet [who=world] [times=1])',
    );
    expect(usageError(() => entries({}, { task: 'lint', words: ['x'] }))).toBe('task lint got 1 argument but takes none (usage: rho run lint)');
    const pair = { from: { type: 'string', required: true }, to: { type: 'string', required: true } } satisfies Record<string, InputDeclaration>;
    expect(usageError(() => entries(pair, { task: 'copy', words: ['a'] }))).toBe('task copy got 1 argument but takes 2 (usage: rho run copy from to)');
    const mixed = { from: { type: 'string', required: true }, to: { type: 'string' } } satisfies Record<string, InputDeclaration>;
    expect(usageError(() => entries(mixed, { task: 'copy', words: ['a', 'b', 'c'] }))).toBe('task copy got 3 arguments but takes 1 to 2 (usage: rho run copy from [to])');
  });

  it('refuses a parameter given twice, by name or by -i and name', () => {
    expect(usageError(() => entries(greet, { task: 'greet', words: ['who=a', 'who=b'] }))).toBe('input who is given twice (usage: rho run greet [who=world] [times=1])');
    expect(usageError(() => entries(greet, { task: 'greet', inputs: ['who=a'], words: ['who=b'] }))).toContain('input who is given twice');
  });

  it('names the command the parameters were given to', () => {
    const given: TaskArguments = { words: [], passThrough: [], inputs: [], invocation: 'rho plan ci/tasks.yml tc', task: 'test-crate' };
    expect(usageError(() => taskArgumentEntries(given, taskParameters(testCrate), testCrate))).toContain('(usage: rho plan ci/tasks.yml tc name [extra...])');
  });
});
