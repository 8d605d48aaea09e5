import type { z } from 'zod';
import { ToolError } from './errors.js';
import { describeKeyPath, findProtoKey } from './prototype-keys.js';

/** Longest JSON text of a call's arguments rho accepts. */
export const maxArgumentBytes = 1024 * 1024;

function fieldName(issuePath: readonly PropertyKey[]): string {
  return issuePath.length === 0 ? '(arguments)' : issuePath.map(String).join('.');
}

/** Formats zod issues as `field: message` lines, each naming the field. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') return `${fieldName(issue.path)}: unknown field(s) ${issue.keys.join(', ')}`;
      return `${fieldName(issue.path)}: ${issue.message}`;
    })
    .join('; ');
}

/** The top-level field whose JSON text is longest, so an oversized call names what to shrink. */
function largestField(rawArgs: unknown): string | undefined {
  if (rawArgs === null || typeof rawArgs !== 'object' || Array.isArray(rawArgs)) return undefined;
  const sizes = Object.entries(rawArgs).map(([key, value]) => [key, JSON.stringify(value)?.length ?? 0] as const);
  return sizes.sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** Parses a call's untrusted arguments against its tool's strict schema. */
export function parseArguments<S extends z.ZodType>(tool: string, schema: S, rawArgs: unknown): z.infer<S> {
  let size: number;
  try {
    size = Buffer.byteLength(JSON.stringify(rawArgs ?? {}));
  } catch (cause) {
    throw new ToolError('invalid_arguments', `${tool}: arguments are not JSON data`, { cause });
  }
  if (size > maxArgumentBytes) {
    const field = largestField(rawArgs);
    throw new ToolError('invalid_arguments', `${tool}: arguments are ${size} bytes, over the ${maxArgumentBytes}-byte limit${field ? ` (largest field: ${field})` : ''}`, {
      details: { fields: field ? [field] : [] },
    });
  }
  // zod would assign the key, which sets the result's prototype rather than keeping it.
  const protoKey = findProtoKey(rawArgs);
  if (protoKey) {
    throw new ToolError(
      'invalid_arguments',
      `${tool}: invalid arguments: ${describeKeyPath(protoKey)}: the key "__proto__" is refused (JavaScript reads it as the object's prototype, not as data)`,
      {
        details: { fields: [describeKeyPath(protoKey)] },
      },
    );
  }
  const parsed = schema.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    throw new ToolError('invalid_arguments', `${tool}: invalid arguments: ${describeIssues(parsed.error.issues)}`, {
      details: { fields: parsed.error.issues.map((issue) => fieldName(issue.path)) },
    });
  }
  return parsed.data;
}
