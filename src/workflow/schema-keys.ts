import { z } from 'zod';

/**
 * The keys an object schema accepts at `path` inside `schema` (through optional, default,
 * array, record and union wrappers; a union's options that lead there each add theirs), for a
 * did-you-mean on an unknown key; empty when the path does not lead to an object schema.
 */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const current = unwrap(schema);
  if (current instanceof z.ZodUnion) return [...new Set((current.options as z.ZodType[]).flatMap((option) => knownKeysAt(option, path)))];
  if (path.length === 0) return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
  const [segment, ...rest] = path;
  const index = typeof segment === 'number' || /^\d+$/.test(String(segment));
  let next: z.ZodType | undefined;
  if (current instanceof z.ZodObject) next = (current.shape as Record<string, z.ZodType>)[String(segment)];
  else if (current instanceof z.ZodArray && index) next = current.element as z.ZodType;
  else if (current instanceof z.ZodRecord) next = current.valueType as z.ZodType;
  return next ? knownKeysAt(next, rest) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodDefault || current instanceof z.ZodNullable || current instanceof z.ZodPipe) {
    current = (current instanceof z.ZodPipe ? current.in : current.unwrap()) as z.ZodType;
  }
  return current;
}

/**
 * The first key of `keys` that data shaped by `schema` can never have, with the keys it can
 * have there; undefined when every key may exist (or the shape is open: a record, unknown).
 */
export function missingField(schema: z.ZodType, keys: readonly string[]): { index: number; known: string[] } | undefined {
  let current: z.ZodType | undefined = schema;
  for (const [index, key] of keys.entries()) {
    current = unwrap(current);
    if (current instanceof z.ZodArray) {
      if (!/^\d+$/.test(key)) return { index, known: [] };
      current = current.element as z.ZodType;
    } else if (current instanceof z.ZodRecord) {
      current = current.valueType as z.ZodType;
    } else if (current instanceof z.ZodObject) {
      const shape = current.shape as Record<string, z.ZodType>;
      if (!Object.hasOwn(shape, key)) return { index, known: Object.keys(shape) };
      current = shape[key];
    } else {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Whether data shaped by `schema` holds text at `path` (a string, through objects, arrays,
 * records and wrappers; a union only when each of its options there is text): where an
 * expression's number or boolean is written as text.
 */
export function expectsText(schema: z.ZodType, path: readonly PropertyKey[]): boolean {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const [index, segment] of path.entries()) {
    if (current instanceof z.ZodUnion) return (current.options as z.ZodType[]).every((option) => expectsText(option, path.slice(index)));
    if (current instanceof z.ZodObject) current = (current.shape as Record<string, z.ZodType>)[String(segment)];
    else if (current instanceof z.ZodArray) current = current.element as z.ZodType;
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else return false;
    current = unwrap(current);
  }
  if (current instanceof z.ZodUnion) return (current.options as z.ZodType[]).every((option) => expectsText(option, []));
  return current instanceof z.ZodString;
}
