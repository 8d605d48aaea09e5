import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { capabilityClasses, type CapabilityClass } from '../../host/capability.js';
import {
  defaultToolTimeoutMs,
  defineTool,
  type ExecutionMode,
  type ExecutionPolicy,
  type PrepareContext,
  type PreparedExecution,
  type Tool,
  type ToolContext,
  type ToolOutput,
} from '../../host/tool.js';
import { argumentSchemaFromJsonSchema, parseArgumentsJsonSchema } from '../../tools/mcp/argument-schema.js';
import { maxDescriptionLength } from '../../tools/mcp/mcp-tool.js';

/** Module tool names: no `.`, which is reserved for MCP tools (`<server>.<tool>`). */
const toolNamePattern = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** How long reading one declaration (and turning its schema into JSON Schema) may take. */
export const declarationTimeBudgetMs = 1000;
const maxTimeoutMs = 24 * 60 * 60 * 1000;

/** A declaration that cannot be used: the tool is left out of the run with this reason. */
class LeftOut extends Error {}

type Field = { value: unknown } | { threw: string };
type Prepare = (args: unknown, ctx: PrepareContext) => Promise<PreparedExecution>;
type Run = (args: unknown, ctx: ToolContext) => Promise<ToolOutput>;
type Selftest = (tempDir: string) => Promise<void>;

const fieldNames = [
  'name',
  'description',
  'schema',
  'executionPolicy',
  'timeoutMs',
  'classes',
  'mode',
  'untrustedContent',
  'run',
  'prepare',
  'selftest',
] as const;
type FieldName = (typeof fieldNames)[number];

function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/** Reads every field once: a getter or proxy that throws is recorded, never re-read. */
function snapshot(raw: object): Record<FieldName, Field> {
  const fields = {} as Record<FieldName, Field>;
  for (const name of fieldNames) {
    try {
      fields[name] = { value: (raw as Record<string, unknown>)[name] };
    } catch (thrown) {
      fields[name] = { threw: messageOf(thrown) };
    }
  }
  return fields;
}

function required(fields: Record<FieldName, Field>, name: FieldName): unknown {
  const field = fields[name];
  if ('threw' in field) throw new LeftOut(`reading its ${name} threw: ${field.threw}`);
  return field.value;
}

/** A field with a default: anything but a valid value (a throw included) means the default, with a warning. */
function optional<T>(fields: Record<FieldName, Field>, name: FieldName, check: (value: unknown) => value is T, fallback: T, expected: string, warnings: string[]): T {
  const field = fields[name];
  if (!('threw' in field) && field.value === undefined) return fallback;
  if (!('threw' in field) && check(field.value)) return field.value;
  const got = 'threw' in field ? `reading it threw: ${field.threw}` : `got ${JSON.stringify(field.value) ?? typeof field.value}`;
  warnings.push(`${name} should be ${expected} (${got}); using the default ${JSON.stringify(fallback)}`);
  return fallback;
}

function checkName(value: unknown): string {
  if (typeof value !== 'string') throw new LeftOut(`its name is not a string (got ${typeof value})`);
  if (!toolNamePattern.test(value)) {
    throw new LeftOut(`its name ${JSON.stringify(value.slice(0, 80))} is not a tool name (a letter, then letters, digits, _ or -; at most 64)`);
  }
  return value;
}

function checkDescription(value: unknown): string {
  if (typeof value !== 'string') throw new LeftOut(`its description is not a string (got ${typeof value})`);
  if (value.length > maxDescriptionLength) throw new LeftOut(`its description is longer than ${maxDescriptionLength} characters`);
  return value;
}

/**
 * The schema a module declares: a zod schema (kept, so the tool gets its own parsed values) or
 * a plain JSON Schema object (checked by a zod schema built from it). Either way it must turn
 * into a bounded JSON Schema of an arguments object.
 */
function checkSchema(value: unknown): z.ZodType {
  try {
    if (isZodSchema(value)) {
      parseArgumentsJsonSchema(z.toJSONSchema(value, { io: 'input', unrepresentable: 'any' }));
      return value;
    }
    return argumentSchemaFromJsonSchema(parseArgumentsJsonSchema(value));
  } catch (thrown) {
    throw new LeftOut(`its schema is unusable: ${messageOf(thrown)}`);
  }
}

/** Whether a value is a zod schema (from any copy of zod 4, such as a module's own). */
function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

const isFunction = <F>(value: unknown): value is F => typeof value === 'function';
const isTimeout = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 0 && (value as number) <= maxTimeoutMs;
const isPolicy = (value: unknown): value is ExecutionPolicy => value === 'exclusive' || value === 'resource-aware';
const isMode = (value: unknown): value is ExecutionMode => value === 'sync' || value === 'async';
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';
const isClassList = (value: unknown): value is CapabilityClass[] =>
  Array.isArray(value) && value.length <= capabilityClasses.length && value.every((item) => capabilityClasses.includes(item as CapabilityClass));

/** Runs a prepare-only tool as an exclusive one: prepare, authorize each request in turn, execute. */
function runThroughPrepare(prepare: Prepare): Run {
  return async (args, ctx) => {
    const plan = await prepare(args, ctx);
    for (const request of plan.requests) await ctx.authorize(request);
    return plan.execute(ctx);
  };
}

export interface CheckedDeclaration {
  /** Undefined when the tool is left out. */
  tool?: Tool;
  /** One line when the tool is left out; otherwise one per field that fell back to its default. */
  warnings: string[];
}

/**
 * Checks a module's tool declaration as untrusted data, within a time budget: every field is
 * read once; a name, description or schema that throws or is not a string / JSON Schema object
 * leaves the tool out; a bad timeout, execution policy, mode or class list means the default.
 * The functions are kept as they are: module code is trusted, only its declaration is checked.
 */
export function checkModuleDeclaration(raw: unknown, label: string, timeBudgetMs = declarationTimeBudgetMs): CheckedDeclaration {
  const started = performance.now();
  const warnings: string[] = [];
  let name: string | undefined;
  try {
    if (typeof raw !== 'object' || raw === null) throw new LeftOut('it is not a tool definition (export defineTool({...}))');
    const fields = snapshot(raw);
    name = checkName(required(fields, 'name'));
    const description = checkDescription(required(fields, 'description'));
    const schema = checkSchema(required(fields, 'schema'));
    const run = optional<Run | undefined>(fields, 'run', isFunction, undefined, 'a function', warnings);
    const prepare = optional<Prepare | undefined>(fields, 'prepare', isFunction, undefined, 'a function', warnings);
    const selftest = optional<Selftest | undefined>(fields, 'selftest', isFunction, undefined, 'a function', warnings);
    let executionPolicy = optional(fields, 'executionPolicy', isPolicy, 'exclusive', '"exclusive" or "resource-aware"', warnings);
    if (executionPolicy === 'resource-aware' && !prepare) {
      warnings.push('executionPolicy is "resource-aware" but there is no prepare function; using the default "exclusive"');
      executionPolicy = 'exclusive';
    }
    if (!run && !prepare) throw new LeftOut('it has neither a run nor a prepare function');
    const common = {
      name,
      description,
      schema,
      origin: 'host' as const,
      classes: optional(fields, 'classes', isClassList, [], `a list of capability classes (${capabilityClasses.join(', ')})`, warnings),
      mode: optional(fields, 'mode', isMode, 'sync', '"sync" or "async"', warnings),
      timeoutMs: optional(fields, 'timeoutMs', isTimeout, defaultToolTimeoutMs, `a whole number of milliseconds from 1 to ${maxTimeoutMs}`, warnings),
      untrustedContent: optional(fields, 'untrustedContent', isBoolean, false, 'true or false', warnings),
      ...(selftest && { selftest: (tempDir: string) => selftest.call(raw, tempDir) }),
    };
    const tool =
      executionPolicy === 'resource-aware' && prepare
        ? defineTool({ ...common, executionPolicy, prepare: (args, ctx) => prepare.call(raw, args, ctx) })
        : defineTool({ ...common, executionPolicy: 'exclusive', run: run ? (args, ctx) => run.call(raw, args, ctx) : runThroughPrepare((args, ctx) => prepare!.call(raw, args, ctx)) });
    const elapsedMs = performance.now() - started;
    if (elapsedMs > timeBudgetMs) {
      throw new LeftOut(`reading its declaration took ${Math.round(elapsedMs)}ms, over the ${timeBudgetMs}ms limit`);
    }
    return { tool, warnings: warnings.map((warning) => `${label}: tool ${name}: ${warning}`) };
  } catch (thrown) {
    if (!(thrown instanceof LeftOut)) throw thrown;
    return { warnings: [`${label}: ${name === undefined ? 'a tool' : `tool ${name}`} was left out: ${thrown.message}`] };
  }
}
