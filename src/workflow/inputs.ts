import { HostError } from '../host/errors.js';
import { passThroughInput, type InputDeclaration } from './schema.js';

export type InputValue = string | number | boolean | readonly string[];

/**
 * Turns `-i KEY=VALUE` strings into typed inputs, checked against the workflow's `inputs:`. An
 * input not given takes its default; a required one must be given; an optional one without a
 * default is left out (null in expressions). An array input collects every `-i` that names it;
 * what followed `--` on the command line (`passThrough`) becomes the `args` input, which must
 * then be declared as an array.
 */
export function parseInputs(raw: readonly string[], declared: Readonly<Record<string, InputDeclaration>>, passThrough: readonly string[] = []): Record<string, InputValue> {
  const given = new Map<string, string>();
  const lists = new Map<string, string[]>();
  for (const entry of raw) {
    const separator = entry.indexOf('=');
    if (separator <= 0) throw new HostError('usage', `--input "${entry}" must be KEY=VALUE`);
    const key = entry.slice(0, separator);
    if (!Object.hasOwn(declared, key)) {
      const known = Object.keys(declared);
      throw new HostError('usage', `--input ${key}: the workflow declares no such input${known.length ? ` (inputs: ${known.join(', ')})` : ''}`);
    }
    if (declared[key]!.type === 'array') lists.set(key, [...(lists.get(key) ?? []), entry.slice(separator + 1)]);
    else given.set(key, entry.slice(separator + 1));
  }
  if (passThrough.length > 0) {
    if (declared[passThroughInput]?.type !== 'array') {
      throw new HostError('usage', `arguments after -- need an input to go to: declare inputs: { ${passThroughInput}: { type: array } }`);
    }
    lists.set(passThroughInput, [...(lists.get(passThroughInput) ?? []), ...passThrough]);
  }
  const inputs: Record<string, InputValue> = {};
  for (const [name, declaration] of Object.entries(declared)) {
    const list = lists.get(name);
    if (declaration.type === 'array') {
      if (list !== undefined) inputs[name] = list;
      else if (declaration.default !== undefined) inputs[name] = declaration.default as readonly string[];
      else if (declaration.required) throw new HostError('usage', `input ${name} is required: pass --input ${name}=VALUE (once for each item)`);
      else inputs[name] = [];
      continue;
    }
    const text = given.get(name);
    if (text === undefined) {
      // Validation refuses a list as the default of any other type.
      if (declaration.default !== undefined) inputs[name] = declaration.default as string | number | boolean;
      else if (declaration.required) throw new HostError('usage', `input ${name} is required: pass --input ${name}=VALUE`);
      continue;
    }
    inputs[name] = convert(name, text, declaration);
  }
  return inputs;
}

function convert(name: string, text: string, { type, options }: InputDeclaration): string | number | boolean {
  if (type === 'string') return text;
  if (type === 'choice') {
    if (options?.includes(text)) return text;
    throw new HostError('usage', `input ${name} is one of ${(options ?? []).join(', ')}, not "${text}"`);
  }
  if (type === 'boolean') {
    if (text === 'true') return true;
    if (text === 'false') return false;
    throw new HostError('usage', `input ${name} is a boolean: use true or false, not "${text}"`);
  }
  const number = Number(text);
  if (text.trim() === '' || !Number.isFinite(number)) throw new HostError('usage', `input ${name} is a number, not "${text}"`);
  return number;
}
