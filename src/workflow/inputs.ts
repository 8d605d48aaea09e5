import { HostError } from '../host/errors.js';
import type { InputDeclaration } from './schema.js';

/**
 * Turns `-i KEY=VALUE` strings into typed inputs, checked against the workflow's `inputs:`. An
 * input not given takes its default; a required one must be given; an optional one without a
 * default is left out (null in expressions).
 */
export function parseInputs(
  raw: readonly string[],
  declared: Readonly<Record<string, InputDeclaration>>,
): Record<string, string | number | boolean> {
  const given = new Map<string, string>();
  for (const entry of raw) {
    const separator = entry.indexOf('=');
    if (separator <= 0) throw new HostError('usage', `--input "${entry}" must be KEY=VALUE`);
    const key = entry.slice(0, separator);
    if (!Object.hasOwn(declared, key)) {
      const known = Object.keys(declared);
      throw new HostError('usage', `--input ${key}: the workflow declares no such input${known.length ? ` (inputs: ${known.join(', ')})` : ''}`);
    }
    given.set(key, entry.slice(separator + 1));
  }
  const inputs: Record<string, string | number | boolean> = {};
  for (const [name, declaration] of Object.entries(declared)) {
    const text = given.get(name);
    if (text === undefined) {
      if (declaration.default !== undefined) inputs[name] = declaration.default;
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
