import { z } from 'zod';
import { HostError } from '../../host/errors.js';

/** Largest JSON Schema (as JSON text) rho accepts for one tool's arguments. */
export const maxSchemaBytes = 256 * 1024;
/** Deepest nesting of objects and arrays in such a schema. */
const maxSchemaDepth = 64;

export type JsonSchemaObject = Record<string, unknown>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function depthOf(value: unknown, depth = 0): number {
  if (depth > maxSchemaDepth || typeof value !== 'object' || value === null) return depth;
  let deepest = depth;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child, depth + 1));
  return deepest;
}

/**
 * Copies an untrusted JSON Schema into plain data and checks it describes an object (`what`:
 * of arguments, of structured results). The copy goes through JSON text, so getters, cycles,
 * functions and class instances cannot survive it: what is kept is what was read once, within
 * the size and depth bounds.
 */
export function parseObjectJsonSchema(raw: unknown, what: string): JsonSchemaObject {
  if (!isPlainObject(raw)) throw new HostError('invalid_tool', 'the schema is not a JSON Schema object');
  let text: string;
  try {
    text = JSON.stringify(raw);
  } catch (cause) {
    throw new HostError('invalid_tool', `the schema is not plain JSON data (${(cause as Error).message})`, { cause });
  }
  if (Buffer.byteLength(text) > maxSchemaBytes) throw new HostError('invalid_tool', `the schema is larger than ${maxSchemaBytes / 1024} KiB`);
  const schema = JSON.parse(text) as JsonSchemaObject;
  if (depthOf(schema) > maxSchemaDepth) throw new HostError('invalid_tool', `the schema nests deeper than ${maxSchemaDepth} levels`);
  if (schema.type !== 'object') throw new HostError('invalid_tool', `the schema must describe an object of ${what} ("type": "object")`);
  return schema;
}

export function parseArgumentsJsonSchema(raw: unknown): JsonSchemaObject {
  return parseObjectJsonSchema(raw, 'arguments');
}

/**
 * The zod schema that validates a call's arguments against a JSON Schema (zod's
 * `z.fromJSONSchema`). Arguments are strict, as for every rho tool: unless the schema says
 * otherwise, a field it does not name is rejected rather than passed on.
 */
export function argumentSchemaFromJsonSchema(schema: JsonSchemaObject): z.ZodType {
  const strict = 'additionalProperties' in schema ? schema : { ...schema, additionalProperties: false };
  return zodFromJsonSchema(strict, 'arguments');
}

/** The zod schema that checks a tool's `structuredContent` against its `outputSchema`, as declared (not made strict). */
export function outputSchemaFromJsonSchema(schema: JsonSchemaObject): z.ZodType {
  return zodFromJsonSchema(schema, 'structured results');
}

function zodFromJsonSchema(schema: JsonSchemaObject, what: string): z.ZodType {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (cause) {
    throw new HostError('invalid_tool', `the schema cannot be used to check ${what}: ${(cause as Error).message}`, { cause });
  }
}
