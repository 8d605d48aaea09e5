import { HostError } from '../host/errors.js';
import type { InputDeclaration } from './schema.js';

/** A task's own input as a parameter of `rho run TASK VALUE...`. */
export interface TaskParameter {
  name: string;
  type: InputDeclaration['type'];
  required?: boolean | undefined;
  default?: InputDeclaration['default'];
  /** The last parameter of type array: it takes every value left. */
  variadic: boolean;
}

/** A task's parameters: its own inputs in the order written, the last one variadic when it is an array. */
export function taskParameters(own: Readonly<Record<string, InputDeclaration>>): TaskParameter[] {
  const entries = Object.entries(own);
  return entries.map(([name, input], index) => ({ ...input, name, variadic: index === entries.length - 1 && input.type === 'array' }));
}

/** How a parameter reads in a usage line and in `rho list`, as `just` shows them: `name`, `[who=world]`, `[extra...]`. */
export function parameterUsage(parameter: Omit<TaskParameter, 'variadic'> & { variadic: boolean }): string {
  if (parameter.variadic) return parameter.required ? `${parameter.name}...` : `[${parameter.name}...]`;
  if (parameter.required) return parameter.name;
  if (parameter.default === undefined || Array.isArray(parameter.default)) return `[${parameter.name}]`;
  return `[${parameter.name}=${String(parameter.default)}]`;
}

export interface TaskArguments {
  /** The words after the task on the command line (before `--`). */
  words: readonly string[];
  /** What followed `--`: the variadic parameter's values, or the `args` input's. */
  passThrough: readonly string[];
  /** `-i NAME=VALUE` as given. */
  inputs: readonly string[];
  /** How the command line named the task, for a usage line: `rho run just.yml filter`. */
  invocation: string;
  /** The task, as messages name it. */
  task: string;
}

/**
 * The `-i NAME=VALUE` entries a command line means for a task, and what is left for the `args`
 * input: a word `NAME=VALUE` whose NAME is an input the task reads sets it (as `make` and
 * `go-task` take variables); every other word is the next parameter not set by name, in order,
 * the variadic one taking the rest and what follows `--`. A parameter given twice, a required one
 * missing or a word too many is a usage error that shows the usage line, as `just` does.
 */
export function taskArgumentEntries(
  given: TaskArguments,
  parameters: readonly TaskParameter[],
  declared: Readonly<Record<string, InputDeclaration>>,
): { inputs: string[]; passThrough: readonly string[] } {
  const usage = `usage: ${[given.invocation, ...parameters.map(parameterUsage)].join(' ')}`;
  const named = new Set(given.inputs.map((entry) => entry.slice(0, Math.max(0, entry.indexOf('=')))));
  const inputs = [...given.inputs];
  const positional: string[] = [];
  for (const word of given.words) {
    const name = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word)?.[1];
    if (name !== undefined && Object.hasOwn(declared, name)) {
      if (named.has(name) && declared[name]!.type !== 'array') throw new HostError('usage', `input ${name} is given twice (${usage})`);
      named.add(name);
      inputs.push(word);
    } else {
      positional.push(word);
    }
  }
  const open = parameters.filter((parameter) => !named.has(parameter.name));
  const variadic = open.at(-1)?.variadic ? open.at(-1) : undefined;
  const single = variadic ? open.slice(0, -1) : open;
  // Words fill the parameters in order: the fewest is up to the last required one, every single one before a required variadic.
  const fewest = (variadic?.required ? single.length : single.findLastIndex((parameter) => parameter.required)) + 1;
  const count = positional.length + (variadic ? given.passThrough.length : 0);
  const tooMany = !variadic && positional.length > single.length;
  const missing = single.some((parameter, index) => parameter.required && positional[index] === undefined) || (variadic?.required === true && count <= single.length);
  if (tooMany || missing) {
    const most = single.length;
    const takes = variadic ? `at least ${fewest}` : most === 0 ? 'none' : fewest === most ? `${most}` : fewest === 0 ? `at most ${most}` : `${fewest} to ${most}`;
    const noun = (count: number) => `argument${count === 1 ? '' : 's'}`;
    throw new HostError('usage', `task ${given.task} got ${count} ${noun(count)} but takes ${takes} (${usage})`);
  }
  single.forEach((parameter, index) => {
    const value = positional[index];
    if (value !== undefined) inputs.push(`${parameter.name}=${value}`);
  });
  if (!variadic) return { inputs, passThrough: given.passThrough };
  const rest = [...positional.slice(single.length), ...given.passThrough];
  inputs.push(...rest.map((value) => `${variadic.name}=${value}`));
  return { inputs, passThrough: [] };
}
