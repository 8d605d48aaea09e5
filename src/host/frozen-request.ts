import { inspect } from 'node:util';
import { capabilityClasses } from './capability-classes.js';
import type { CapabilityRequest, ProcessRequest, ShellRequest } from './capability.js';
import { ToolError } from './errors.js';
import { ResolvedPath } from './workspace.js';

/** Requests this module made: already copied, checked and frozen. */
const frozen = new WeakSet<object>();

/** Deepest nesting a request may have (a network request's headers are the deepest rho makes). */
const maxDepth = 16;

const pathClasses: ReadonlySet<string> = new Set(['read', 'write', 'skill', 'instructions']);

function refuse(why: string): ToolError {
  return new ToolError('internal', `a capability request was refused before any decision: ${why}`);
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** A copy of plain data (ResolvedPath instances, already frozen, are kept): nothing the asker holds is shared with it. */
function copyOf(value: unknown, where: string, depth: number, seen: Set<object>): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'function' || typeof value === 'symbol') throw refuse(`${where} is a ${typeof value}, not data`);
    return value;
  }
  if (value instanceof ResolvedPath) return value;
  if (depth > maxDepth) throw refuse(`it nests deeper than ${maxDepth} levels`);
  if (seen.has(value)) throw refuse(`${where} refers back to itself`);
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item, index) => copyOf(item, `${where}[${index}]`, depth + 1, seen));
    if (!isPlainObject(value)) throw refuse(`${where} is a ${value.constructor?.name ?? 'class'} instance, not plain data`);
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) copy[key] = copyOf((value as Record<string, unknown>)[key], `${where}.${key}`, depth + 1, seen);
    return copy;
  } finally {
    seen.delete(value);
  }
}

/** The shape checks policy matching relies on: a known class, and a path only the workspace could have resolved. */
function validateShape(request: Record<string, unknown>): void {
  const requestClass = request.class;
  if (typeof requestClass !== 'string' || !(capabilityClasses as readonly string[]).includes(requestClass)) {
    throw refuse(`its class ${JSON.stringify(requestClass) ?? String(requestClass)} is not one of ${capabilityClasses.join(', ')}`);
  }
  if (pathClasses.has(requestClass) && !(request.path instanceof ResolvedPath)) {
    throw refuse(`a ${requestClass} request's path must be a ResolvedPath from ctx.workspace.resolveForRead or resolveForWrite`);
  }
  if (requestClass === 'process' || requestClass === 'shell') {
    const { argv, env, executable, cwd } = request;
    if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === 'string')) throw refuse(`a ${requestClass} request's argv must be a list of strings`);
    if (typeof env !== 'object' || env === null) throw refuse(`a ${requestClass} request's env must be an object of names and values`);
    if (typeof executable !== 'object' || executable === null || typeof (executable as { resolved?: unknown }).resolved !== 'string') {
      throw refuse(`a ${requestClass} request's executable must say what it resolved to`);
    }
    if (typeof cwd !== 'string') throw refuse(`a ${requestClass} request's cwd must be a path`);
    if (requestClass === 'shell' && typeof request.script !== 'string') throw refuse('a shell request must carry its script');
  }
}

/**
 * What logs and debug output may show of a process or shell request: the facts, with the
 * arguments, the script and the environment's values left out (any may hold a secret). A display
 * that means to show the command reads `request.argv` / `request.script` by name.
 */
function redactedView(request: ProcessRequest | ShellRequest): Record<string, unknown> {
  const { argv, env, ...facts } = request;
  const redacted: Record<string, unknown> = { ...facts, argv: `[${argv.length} argument(s) redacted]`, env: Object.keys(env).map((name) => `${name}=[redacted]`) };
  if (request.class === 'shell') redacted.script = `[${request.script.length} characters redacted]`;
  return redacted;
}

function freezeDeep(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) freezeDeep((value as Record<string, unknown>)[key]);
}

/**
 * The one value a request is decided on: a deep copy of what the asker passed, checked and
 * frozen, so that the policy, every gate, the remembered-approval fingerprint, a scripted rule
 * and the approver all see the same facts, and nothing anyone holds can change them. A
 * process or shell request shows its argv, script and env values to neither
 * `util.inspect` nor `JSON.stringify`. Freezing a frozen request returns it as it is.
 */
export function freezeRequest(request: CapabilityRequest): CapabilityRequest {
  if (typeof request === 'object' && request !== null && frozen.has(request)) return request;
  if (typeof request !== 'object' || request === null || Array.isArray(request)) throw refuse('it is not an object');
  const copy = copyOf(request, 'the request', 0, new Set()) as Record<string, unknown>;
  validateShape(copy);
  const checked = copy as unknown as CapabilityRequest;
  if (checked.class === 'process' || checked.class === 'shell') {
    const view = () => redactedView(checked as ProcessRequest | ShellRequest);
    Object.defineProperty(copy, 'toJSON', { value: view, enumerable: false });
    Object.defineProperty(copy, inspect.custom, { value: view, enumerable: false });
  }
  freezeDeep(copy);
  frozen.add(copy);
  return checked;
}
