/**
 * Typed errors. Every failure rho reports carries a `kind` a script can switch on and a
 * message that says what was refused and how to fix it.
 */
export const toolErrorKinds = [
  'invalid_arguments',
  'unknown_tool',
  'policy_denied',
  'hook_denied',
  'approval_denied',
  'cancelled',
  'interrupted',
  'timeout',
  'path_refused',
  'not_found',
  'conflict',
  'execution_failed',
  'unsupported',
  'internal',
] as const;

export type ToolErrorKind = (typeof toolErrorKinds)[number];

/** Kinds that mean "an authority said no"; a run failed by one of them exits 3. */
export const denialKinds: ReadonlySet<ToolErrorKind> = new Set(['policy_denied', 'hook_denied', 'approval_denied']);

/** Faults of the host or of its input (a bad workflow, flag or configuration): never a tool's result. */
export const hostErrorKinds = ['usage', 'invalid_workflow', 'invalid_configuration', 'invalid_tool', 'invalid_hooks', 'invalid_label', 'invalid_event', 'output_failed'] as const;
export type HostErrorKind = (typeof hostErrorKinds)[number];

/** Every kind an error of rho's can have: a closed set, each mapped to an exit code (`exit-codes.ts`). */
export type ErrorKind = ToolErrorKind | HostErrorKind;

/** The one error base: a string `kind` a script can switch on, a message that says how to fix it, `cause` when wrapping. */
export abstract class RhoError extends Error {
  abstract readonly kind: ErrorKind;
}

/** A failed call's text and data, shaped as a ToolOutput's. */
export interface PartialOutput {
  text: string;
  data?: unknown;
}

export class ToolError extends RhoError {
  override readonly name = 'ToolError';
  readonly kind: ToolErrorKind;
  readonly details: Readonly<Record<string, unknown>>;
  /**
   * What the call produced before it failed (a process's exit code and bounded output), kept as
   * the failed result's output so a workflow can read `steps.X.data` after a failure.
   */
  readonly output: PartialOutput | undefined;

  constructor(kind: ToolErrorKind, message: string, options: { cause?: unknown; details?: Record<string, unknown>; output?: PartialOutput } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.details = options.details ?? {};
    this.output = options.output;
  }

  toJSON(): { kind: ToolErrorKind; message: string } {
    return { kind: this.kind, message: this.message };
  }
}

/** Turns anything thrown inside a tool into a ToolError, keeping typed errors as they are. */
export function toToolError(thrown: unknown, fallbackKind: ToolErrorKind = 'execution_failed'): ToolError {
  if (thrown instanceof ToolError) return thrown;
  if (thrown instanceof Error) return new ToolError(fallbackKind, thrown.message, { cause: thrown });
  return new ToolError(fallbackKind, `tool failed: ${String(thrown)}`, { cause: thrown });
}

/** A fault of the host or of its input (bad workflow, bad configuration): not a tool result. A bug is a `ToolError('internal')`. */
export class HostError extends RhoError {
  override readonly name = 'HostError';
  readonly kind: HostErrorKind;
  constructor(kind: HostErrorKind, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
  }
}
