import { z } from 'zod';

/**
 * The keys an object schema accepts at `path` inside `schema` (through optional, default,
 * array, record and union wrappers), for a did-you-mean on an unknown key; empty when the
 * path does not lead to one object schema.
 */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  for (const segment of path) {
    current = unwrap(current);
    if (current instanceof z.ZodObject) current = (current.shape as Record<string, z.ZodType>)[String(segment)];
    else if (current instanceof z.ZodArray) current = current.element as z.ZodType;
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else return [];
    if (!current) return [];
  }
  current = unwrap(current);
  if (current instanceof z.ZodObject) return Object.keys(current.shape);
  if (current instanceof z.ZodUnion) {
    return [...new Set((current.options as z.ZodType[]).flatMap((option) => knownKeysAt(option, [])))];
  }
  return [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodDefault || current instanceof z.ZodNullable) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}
