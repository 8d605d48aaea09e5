import type { InputValue } from './inputs.js';
import type { InputDeclaration } from './schema.js';
import { closestNames } from './suggest.js';

/** One thing wrong with the `with:` of a `uses:` step: at a key (`key` set) or at the step. */
export interface CallInputProblem {
  key?: string;
  message: string;
}

/** The value the checker could not know yet: an expression, checked when the step runs. */
export const notYetKnown = Symbol('not yet known');

/**
 * Checks the `with:` of a `uses:` step against the called task's inputs and returns the inputs
 * its steps read: a known value must have the declared type (a number or boolean given to a
 * string input becomes its text, as on the command line), a required input must be given, an
 * input not given takes its default, and an optional one without a default is left out (null).
 * A value that is `notYetKnown` is accepted here; the run checks it once it is evaluated.
 */
export function checkCallInputs(
  values: Readonly<Record<string, unknown>>,
  declared: Readonly<Record<string, InputDeclaration>>,
  task: string,
): { inputs: Record<string, InputValue>; problems: CallInputProblem[] } {
  const problems: CallInputProblem[] = [];
  const inputs: Record<string, InputValue> = {};
  const names = Object.keys(declared);
  for (const key of Object.keys(values)) {
    if (Object.hasOwn(declared, key)) continue;
    const suggestion = closestNames(key, names)[0];
    const known = suggestion ? `; did you mean "${suggestion}"?` : names.length > 0 ? ` (inputs: ${names.join(', ')})` : ' (it declares no inputs)';
    problems.push({ key, message: `task ${task} has no input "${key}"${known}` });
  }
  for (const [name, declaration] of Object.entries(declared)) {
    if (!Object.hasOwn(values, name) || values[name] === null || values[name] === undefined) {
      if (declaration.default !== undefined) inputs[name] = declaration.default;
      else if (declaration.required) problems.push({ message: `task ${task} requires input ${name}: give it under with:` });
      else if (declaration.type === 'array') inputs[name] = [];
      continue;
    }
    const value = values[name];
    if (value === notYetKnown) continue;
    const checked = convert(value, declaration);
    if ('problem' in checked) problems.push({ key: name, message: `input ${name} of task ${task} ${checked.problem}` });
    else inputs[name] = checked.value;
  }
  return { inputs, problems };
}

function convert(value: unknown, { type, options }: InputDeclaration): { value: InputValue } | { problem: string } {
  const shown = JSON.stringify(value) ?? String(value);
  switch (type) {
    case 'string':
      if (typeof value === 'string') return { value };
      if (typeof value === 'number' || typeof value === 'boolean') return { value: String(value) };
      return { problem: `is a string, not ${shown}` };
    case 'choice':
      if (typeof value === 'string' && options?.includes(value)) return { value };
      return { problem: `is one of ${(options ?? []).join(', ')}, not ${shown}` };
    case 'boolean':
      if (typeof value === 'boolean') return { value };
      return { problem: `is a boolean (true or false), not ${shown}${value === 'true' || value === 'false' ? ' (write it without quotes)' : ''}` };
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return { value };
      return { problem: `is a number, not ${shown}${typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? ' (write it without quotes)' : ''}` };
    case 'array':
      if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return { value: value as string[] };
      return { problem: `is a list of strings, not ${shown}` };
  }
}
