import type { z } from 'zod';
import type { CapabilityClass } from './capability.js';
import { HostError, ToolError } from './errors.js';
import type { ExecutionMode, ExecutionPolicy, PrepareContext, PreparedExecution, ToolContext, ToolOrigin, ToolOutput } from './tool-contract.js';
import { checkToolDefinition, type CheckedDefinition, type ToolBody } from './tool-declaration.js';

export type {
  ToolOrigin,
  ExecutionPolicy,
  ExecutionMode,
  ToolOutput,
  ToolProgress,
  OutputStream,
  HostEnvironment,
  PrepareContext,
  ExecuteContext,
  ToolContext,
  PreparedExecution,
  AudioContent,
  ImageContent,
  ResourceContent,
} from './tool-contract.js';
export { defaultToolTimeoutMs, maxToolTimeoutMs } from './tool-declaration.js';

/**
 * A whole number of milliseconds from 1 to `maxToolTimeoutMs`, as far as a literal shows it
 * (at most 8 digits: 0, negative, fractional and overlong literals are type errors); a bad value
 * that only shows at run time means the default.
 */
export type TimeoutMs<T extends number> = number extends T
  ? T
  : `${T}` extends `-${string}` | '0' | `${string}.${string}` | `${string}e${string}`
    ? never
    : MoreDigitsThan8<`${T}`> extends true
      ? never
      : T;
type MoreDigitsThan8<S extends string, Seen extends unknown[] = []> = Seen['length'] extends 9
  ? true
  : S extends `${string}${infer Rest}`
    ? S extends ''
      ? false
      : MoreDigitsThan8<Rest, [...Seen, unknown]>
    : false;

interface ToolDefinitionBase<S extends z.ZodType, T extends number> {
  /** Letters, digits, `_`, `-` and `.`; unique in a registry. */
  name: string;
  description: string;
  /**
   * Strict zod object schema of the arguments (`z.strictObject`): the single source of
   * validation, types and JSON Schema. Or a function returning it, called once, when the schema
   * is first needed: a run that never calls the tool never builds it.
   */
  schema: S | (() => S);
  /**
   * The shape of a result's `data`, when the tool declares it (shown by `rho tools NAME`; a
   * result whose data does not match it fails); or a function returning it, called once on first use.
   */
  data?: z.ZodType | (() => z.ZodType);
  /** Capability classes the tool enforces (inspectable metadata, not a sandbox). */
  classes?: readonly CapabilityClass[];
  /** Per-call wall limit (default `defaultToolTimeoutMs`); a value that is not a whole number from 1 to `maxToolTimeoutMs` means the default. */
  timeoutMs?: TimeoutMs<T>;
  /** Results bring in content from outside the workspace (web pages, issues, mail): treat them as untrusted input. */
  untrustedContent?: boolean;
  /**
   * Whether an approver's "allow for this run" may cover later identical requests of this tool
   * (default true). False for a tool whose calls are not idempotent: each request is asked anew.
   */
  rememberApprovals?: boolean;
  /** Checks the tool works, without side effects outside the given temp dir. */
  selftest?(tempDir: string): void | Promise<void>;
}

export interface ResourceAwareToolDefinition<S extends z.ZodType, T extends number = number> extends ToolDefinitionBase<S, T> {
  executionPolicy: 'resource-aware';
  mode?: ExecutionMode;
  prepare(args: z.infer<S>, ctx: PrepareContext): PreparedExecution | Promise<PreparedExecution>;
}

export interface ExclusiveToolDefinition<S extends z.ZodType, T extends number = number> extends ToolDefinitionBase<S, T> {
  executionPolicy?: 'exclusive';
  /** An exclusive tool never runs detached: only a resource-aware one may declare `async`. */
  mode?: 'sync';
  run(args: z.infer<S>, ctx: ToolContext): ToolOutput | Promise<ToolOutput>;
}

export type ToolDefinition<S extends z.ZodType = z.ZodType, T extends number = number> = ResourceAwareToolDefinition<S, T> | ExclusiveToolDefinition<S, T>;

/**
 * A registered tool: its declaration, checked, with every default filled in. It has no way to
 * run: only a ToolHost runs a tool, through the whole path (policy, gates, approvals,
 * scheduling, limits, audit).
 */
export interface Tool<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  /** Built on first read when the definition gave a function (a bad one throws a HostError `invalid_tool` then). */
  readonly schema: S;
  /** Built on first read, like `schema`. */
  readonly data: z.ZodType | undefined;
  readonly origin: ToolOrigin;
  readonly classes: readonly CapabilityClass[];
  readonly executionPolicy: ExecutionPolicy;
  readonly mode: ExecutionMode;
  readonly timeoutMs: number;
  readonly untrustedContent: boolean;
  readonly rememberApprovals: boolean;
  /** What the declaration got wrong that fell back to a default (a host reports them once through `onWarning`). */
  readonly warnings: readonly string[];
  selftest?(tempDir: string): Promise<void>;
}

/** What each tool runs, reachable only from here: a tool object alone cannot execute. */
const bodies = new WeakMap<object, ToolBody>();

/**
 * Where a host-provided tool keeps the definition it was made from, for the workflow's module
 * loader: a module's `defineTool` may come from another copy of rho than the CLI that loads it,
 * which checks the definition again. Only host-provided tools have it: their functions are the
 * embedder's own, so handing them back grants nothing. Built-in and MCP tools never do.
 */
export const toolDefinitionKey: unique symbol = Symbol.for('rho.tool.definition') as never;

function toolFrom<S extends z.ZodType>(checked: CheckedDefinition, origin: ToolOrigin, warnings: readonly string[], definition?: unknown): Tool<S> {
  const { body, selftest, schema, data, ...declaration } = checked;
  const tool = { ...declaration, executionPolicy: body.executionPolicy, origin, warnings: Object.freeze([...warnings]), ...(selftest && { selftest }) };
  // Every reader of a tool's schemas comes through these getters, so a schema is built once, when first needed.
  Object.defineProperties(tool, { schema: { get: schema, enumerable: true }, data: { get: data, enumerable: true } });
  if (definition !== undefined) Object.defineProperty(tool, toolDefinitionKey, { value: definition, enumerable: false });
  Object.freeze(tool);
  bodies.set(tool, body);
  return tool as unknown as Tool<S>;
}

/** A tool from a definition already checked (the module loader's, which reports its own warnings). */
export function toolFromCheckedDefinition(checked: CheckedDefinition, origin: ToolOrigin): Tool {
  return toolFrom(checked, origin, []);
}

function checkedOrThrow(definition: unknown): { checked: CheckedDefinition; warnings: string[] } {
  const check = checkToolDefinition(definition);
  if (!check.ok) throw new HostError('invalid_tool', `cannot define ${check.name === undefined ? 'a tool' : `tool ${check.name}`}: ${check.problem}`);
  return { checked: check.definition, warnings: check.warnings.map((warning) => `tool ${check.definition.name}: ${warning}`) };
}

/**
 * Defines a host-provided tool. The declaration is checked once, here: a bad name, description
 * or schema (or neither `run` nor `prepare`) throws a HostError `invalid_tool`; a bad timeout,
 * mode or flag means its default and is listed in `tool.warnings`. A schema given as a function
 * is built and checked when first read, and a bad one throws the HostError then.
 */
export function defineTool<S extends z.ZodType, const T extends number = number>(definition: ResourceAwareToolDefinition<S, T>): Tool<S>;
export function defineTool<S extends z.ZodType, const T extends number = number>(definition: ExclusiveToolDefinition<S, T>): Tool<S>;
export function defineTool<S extends z.ZodType>(definition: ToolDefinition<S>): Tool<S> {
  const { checked, warnings } = checkedOrThrow(definition);
  return toolFrom<S>(checked, 'host', warnings, definition);
}

/** Defines one of rho's own tools (a built-in, or an MCP server's tool as rho wraps it). */
export function defineBuiltinTool<S extends z.ZodType>(definition: ToolDefinition<S> & { origin: 'built-in' | 'mcp' }): Tool<S> {
  const { checked, warnings } = checkedOrThrow(definition);
  if (warnings.length > 0) throw new HostError('invalid_tool', warnings.join('; '));
  return toolFrom<S>(checked, definition.origin, []);
}

/** Whether a value is a tool this copy of rho defined. */
export function isTool(value: unknown): value is Tool {
  return typeof value === 'object' && value !== null && bodies.has(value);
}

/** What a tool runs; for the host's call path alone. */
export function toolBody(tool: Tool): ToolBody {
  const body = bodies.get(tool);
  if (!body) throw new ToolError('internal', `tool ${tool.name} was not made by defineTool`);
  return body;
}

import type { ToolStatus } from './events.js';

export type { ToolStatus };

interface ToolResultBase {
  callId: string;
  tool: string;
  durationMs: number;
  /** The host's result rewriter replaced the output the tool returned (`ToolHostOptions.rewriteResult`); its name. */
  rewrittenBy?: string;
  /** Where everything the call printed (its last attempt) is kept, when it printed any and the host keeps logs. */
  log?: string;
}

/**
 * The outcome of one call; only host faults throw. A success always has its output; any other
 * status has its typed error (and, for a tool that reports what it did before failing, output).
 */
export type ToolResult =
  | (ToolResultBase & { status: 'success'; output: ToolOutput; error?: undefined })
  | (ToolResultBase & { status: Exclude<ToolStatus, 'success'>; error: ToolError; output?: ToolOutput });
