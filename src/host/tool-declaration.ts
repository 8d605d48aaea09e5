import type { z } from 'zod';
import { capabilityClasses, type CapabilityClass } from './capability-classes.js';
import type { ExecutionMode, ExecutionPolicy, PrepareContext, PreparedExecution, ToolContext, ToolOutput } from './tool-contract.js';
import { builtOnce } from './built-once.js';
import { HostError } from './errors.js';

/** A call's limit when its tool declares none. */
export const defaultToolTimeoutMs = 30_000;
/** The longest limit a tool or a call may declare (24 hours): far below what a timer can hold. */
export const maxToolTimeoutMs = 24 * 60 * 60 * 1000;
/** Longest tool description rho keeps. */
export const maxDescriptionLength = 4096;
/** Longest tool name (an MCP tool's is `<server>.<tool>`). */
export const maxToolNameLength = 200;

const toolNamePattern = new RegExp(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,${maxToolNameLength - 1}}$`);

type Prepare = (args: unknown, ctx: PrepareContext) => Promise<PreparedExecution>;
type Run = (args: unknown, ctx: ToolContext) => Promise<ToolOutput>;

/** What a tool runs; only the host reaches it (see `tool.ts`). */
export type ToolBody = { executionPolicy: 'resource-aware'; prepare: Prepare } | { executionPolicy: 'exclusive'; run: Run };

/**
 * A tool's declaration after the checks: every field has a valid value. The schemas are
 * functions: one declared as a function is built and checked on its first call (a bad one
 * throws a HostError `invalid_tool` then, and on every later call), once.
 */
export interface CheckedDefinition {
  name: string;
  description: string;
  schema: () => z.ZodType;
  data: () => z.ZodType | undefined;
  classes: readonly CapabilityClass[];
  mode: ExecutionMode;
  timeoutMs: number;
  untrustedContent: boolean;
  rememberApprovals: boolean;
  selftest: ((tempDir: string) => Promise<void>) | undefined;
  body: ToolBody;
}

export type DefinitionCheck = { ok: true; definition: CheckedDefinition; warnings: string[] } | { ok: false; name: string | undefined; problem: string };

export interface DefinitionCheckOptions {
  /**
   * Turns the declared schema (the value a schema function returns, for a lazy one) into the zod
   * schema to check (the workflow's module loader also takes JSON Schema maps); throws when it
   * cannot. The declared value itself when absent.
   */
  schemaOf?(declared: unknown): unknown;
  /**
   * Builds schemas declared as functions during the check, so that a bad one makes the tool
   * unusable (or, for `data`, means none, with a warning) here rather than on first use.
   */
  buildNow?: boolean;
}

/** A declaration that cannot be used: the tool is refused (or left out) with this reason. */
class Unusable extends HostError {
  constructor(message: string) {
    super('invalid_tool', message);
  }
}

const fieldNames = [
  'name',
  'description',
  'schema',
  'data',
  'executionPolicy',
  'timeoutMs',
  'classes',
  'mode',
  'untrustedContent',
  'rememberApprovals',
  'run',
  'prepare',
  'selftest',
] as const;
type FieldName = (typeof fieldNames)[number];
type Field = { value: unknown } | { threw: string };
type Fields = Record<FieldName, Field>;

function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/** Reads every field once: a getter or proxy that throws is recorded, never read again. */
function snapshot(raw: object): Fields {
  const fields = {} as Fields;
  for (const name of fieldNames) {
    try {
      fields[name] = { value: (raw as Record<string, unknown>)[name] };
    } catch (thrown) {
      fields[name] = { threw: messageOf(thrown) };
    }
  }
  return fields;
}

function required(fields: Fields, name: FieldName): unknown {
  const field = fields[name];
  if ('threw' in field) throw new Unusable(`reading its ${name} threw: ${field.threw}`);
  return field.value;
}

function describeValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/** A field with a default: anything but a valid value (a throw included) means the default, with a warning. */
function optional<T>(fields: Fields, name: FieldName, check: (value: unknown) => value is T, fallback: T, expected: string, warnings: string[]): T {
  const field = fields[name];
  if (!('threw' in field) && field.value === undefined) return fallback;
  if (!('threw' in field) && check(field.value)) return field.value;
  const got = 'threw' in field ? `reading it threw: ${field.threw}` : `got ${describeValue(field.value)}`;
  warnings.push(`${name} should be ${expected} (${got}); using the default ${describeValue(fallback)}`);
  return fallback;
}

function checkName(value: unknown): string {
  if (typeof value !== 'string') throw new Unusable(`its name is not a string (got ${typeof value})`);
  if (!toolNamePattern.test(value)) {
    throw new Unusable(`its name ${JSON.stringify(value.slice(0, 80))} is not a tool name (a letter, digit or _, then letters, digits, _, - or .; at most ${maxToolNameLength})`);
  }
  return value;
}

function checkDescription(value: unknown): string {
  if (typeof value !== 'string') throw new Unusable(`its description is not a string (got ${typeof value})`);
  if (value.length > maxDescriptionLength) throw new Unusable(`its description is longer than ${maxDescriptionLength} characters`);
  return value;
}

/** Whether a value is a zod schema (from any copy of zod 4, such as a module's own). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

interface ZodDefinition {
  type?: string;
  catchall?: unknown;
  in?: { _zod?: { def?: ZodDefinition } };
}

function definitionOf(schema: z.ZodType): ZodDefinition {
  return (schema as unknown as { _zod: { def: ZodDefinition } })._zod.def;
}

/**
 * The object schema a call's arguments are parsed with, through refinements and transforms
 * (a pipe parses with its input side first); undefined when the arguments are not an object.
 */
function argumentObject(definition: ZodDefinition): ZodDefinition | undefined {
  if (definition.type === 'object') return definition;
  if (definition.type === 'pipe' && definition.in?._zod?.def) return argumentObject(definition.in._zod.def);
  return undefined;
}

/**
 * Checks that a schema describes a strict object of arguments: a field it does not name is
 * refused (z.strictObject) or kept on purpose (z.looseObject), never dropped without a word,
 * as `z.object` does. Cheap (no JSON Schema is built), so it may run on a schema's first use.
 */
export function checkArgumentSchema(value: unknown): z.ZodType {
  if (!isZodSchema(value)) {
    const got = typeof value === 'object' && value !== null ? 'a plain object (a JSON Schema?)' : typeof value;
    throw new Unusable(`its schema is not a zod schema (got ${got}); write it with rho's zod: import { z } from 'rho-cli', then z.strictObject({ ... })`);
  }
  const object = argumentObject(definitionOf(value));
  if (!object) throw new Unusable('its schema must describe an object of arguments (z.strictObject({ ... }))');
  if (object.catchall === undefined) {
    throw new Unusable('its schema would drop fields it does not name without a word (z.object); use z.strictObject to refuse them, or z.looseObject to keep them');
  }
  return value;
}

const isFunction = <F>(value: unknown): value is F => typeof value === 'function';
const isPolicy = (value: unknown): value is ExecutionPolicy => value === 'exclusive' || value === 'resource-aware';
const isMode = (value: unknown): value is ExecutionMode => value === 'sync' || value === 'async';
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';
const isDataSchema = (value: unknown): value is z.ZodType | (() => unknown) => isZodSchema(value) || typeof value === 'function';
const isClassList = (value: unknown): value is CapabilityClass[] =>
  Array.isArray(value) && value.length <= capabilityClasses.length && value.every((item) => capabilityClasses.includes(item as CapabilityClass));

/** What a limit must be, for messages: a bad one means the default. */
export const timeoutExpectation = `a whole number of milliseconds from 1 to ${maxToolTimeoutMs}`;

/** Whether a call's or a tool's limit is one rho can keep. */
export function isValidTimeout(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0 && (value as number) <= maxToolTimeoutMs;
}

/** A problem found in a schema built on its first use, named after its tool. */
function unusableOnUse(name: string, problem: string): HostError {
  return new HostError('invalid_tool', `cannot use tool ${name}: ${problem}`);
}

/**
 * The argument schema of a declaration, checked: a zod schema (or, through `schemaOf`, what
 * turns into one) is checked now; a function returning one is called and checked on first use.
 */
function argumentSchemaOf(raw: object, name: string, declared: unknown, options: DefinitionCheckOptions): () => z.ZodType {
  const checked = (value: () => unknown) => {
    try {
      const schema = value();
      return checkArgumentSchema(options.schemaOf ? options.schemaOf(schema) : schema);
    } catch (thrown) {
      throw thrown instanceof Unusable ? thrown : new Unusable(`its schema is unusable: ${messageOf(thrown)}`);
    }
  };
  if (typeof declared !== 'function' || options.buildNow) {
    const schema = checked(() => (typeof declared === 'function' ? declared.call(raw) : declared));
    return () => schema;
  }
  return builtOnce(() => {
    try {
      return checked(() => declared.call(raw));
    } catch (thrown) {
      throw unusableOnUse(name, messageOf(thrown));
    }
  });
}

/**
 * The data schema of a declaration: a function returning one is called and checked on first use
 * (or during the check, with `buildNow`, where a bad one means none, with a warning).
 */
function dataSchemaOf(raw: object, name: string, declared: unknown, options: DefinitionCheckOptions, warnings: string[]): () => z.ZodType | undefined {
  if (typeof declared !== 'function') return () => declared as z.ZodType | undefined;
  const build = (): z.ZodType => {
    let built: unknown;
    try {
      built = declared.call(raw);
    } catch (thrown) {
      throw new Unusable(`building its data schema threw: ${messageOf(thrown)}`);
    }
    if (!isZodSchema(built)) throw new Unusable(`its data function returned ${typeof built}, not a zod schema`);
    return built;
  };
  if (options.buildNow) {
    try {
      const data = build();
      return () => data;
    } catch (thrown) {
      warnings.push(`data: ${messageOf(thrown)}; using none`);
      return () => undefined;
    }
  }
  return builtOnce(() => {
    try {
      return build();
    } catch (thrown) {
      throw unusableOnUse(name, messageOf(thrown));
    }
  });
}

/** Calls a function of the declaration with the declaration as `this`; a plain return value and a synchronous throw both become a promise. */
function bound<A extends unknown[], R>(raw: object, fn: (...args: A) => R | Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => fn.apply(raw, args);
}

/** Runs a prepare-only tool that did not opt in to overlapping as an exclusive one: prepare, authorize each request in turn, execute. */
function runThroughPrepare(prepare: Prepare): Run {
  return async (args, ctx) => {
    const plan = await prepare(args, ctx);
    for (const request of plan.requests) await ctx.authorize(request);
    return plan.execute(ctx);
  };
}

/**
 * Checks a tool's declaration once, as untrusted data: every field is read once; a name,
 * description or schema that throws or is not a string / strict object schema, or a
 * declaration with neither `run` nor `prepare`, makes the tool unusable (a schema declared as a
 * function is checked when it is first built: see `CheckedDefinition`); a bad timeout,
 * execution policy, mode, class list or flag means the default, with a warning. Only an
 * explicit `executionPolicy: 'resource-aware'` with a `prepare` lets calls overlap, and only
 * such a tool may declare `mode: 'async'`.
 */
export function checkToolDefinition(raw: unknown, options: DefinitionCheckOptions = {}): DefinitionCheck {
  let name: string | undefined;
  try {
    if (typeof raw !== 'object' || raw === null) throw new Unusable('it is not a tool definition (defineTool({ name, description, schema, run }))');
    const fields = snapshot(raw);
    name = checkName(required(fields, 'name'));
    const description = checkDescription(required(fields, 'description'));
    const schema = argumentSchemaOf(raw, name, required(fields, 'schema'), options);
    const warnings: string[] = [];
    const run = optional<((...args: unknown[]) => unknown) | undefined>(fields, 'run', isFunction, undefined, 'a function', warnings);
    const prepare = optional<((...args: unknown[]) => unknown) | undefined>(fields, 'prepare', isFunction, undefined, 'a function', warnings);
    const selftest = optional<((tempDir: string) => unknown) | undefined>(fields, 'selftest', isFunction, undefined, 'a function', warnings);
    if (!run && !prepare) throw new Unusable('it has neither a run nor a prepare function');
    let executionPolicy = optional<ExecutionPolicy>(fields, 'executionPolicy', isPolicy, 'exclusive', '"exclusive" or "resource-aware"', warnings);
    if (executionPolicy === 'resource-aware' && !prepare) {
      warnings.push('executionPolicy is "resource-aware" but there is no prepare function; using the default "exclusive"');
      executionPolicy = 'exclusive';
    }
    let mode = optional<ExecutionMode>(fields, 'mode', isMode, 'sync', '"sync" or "async"', warnings);
    if (mode === 'async' && executionPolicy !== 'resource-aware') {
      warnings.push('mode is "async" but the tool runs exclusively (a detached call must declare what it touches, with shared access only); using the default "sync"');
      mode = 'sync';
    }
    const body: ToolBody =
      executionPolicy === 'resource-aware' && prepare
        ? { executionPolicy, prepare: bound(raw, prepare as Prepare) }
        : { executionPolicy: 'exclusive', run: run ? bound(raw, run as Run) : runThroughPrepare(bound(raw, prepare as Prepare)) };
    const definition: CheckedDefinition = {
      name,
      description,
      schema,
      data: dataSchemaOf(raw, name, optional<unknown>(fields, 'data', isDataSchema, undefined, 'a zod schema or a function returning one', warnings), options, warnings),
      classes: optional(fields, 'classes', isClassList, [], `a list of capability classes (${capabilityClasses.join(', ')})`, warnings),
      mode,
      timeoutMs: optional(fields, 'timeoutMs', isValidTimeout, defaultToolTimeoutMs, timeoutExpectation, warnings),
      untrustedContent: optional(fields, 'untrustedContent', isBoolean, false, 'true or false', warnings),
      rememberApprovals: optional(fields, 'rememberApprovals', isBoolean, true, 'true or false', warnings),
      selftest: selftest && bound(raw, selftest as (tempDir: string) => void),
      body,
    };
    return { ok: true, definition, warnings };
  } catch (thrown) {
    if (!(thrown instanceof Unusable)) throw thrown;
    return { ok: false, name, problem: thrown.message };
  }
}
