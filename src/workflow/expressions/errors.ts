import { ToolError } from '../../host/errors.js';

/**
 * A problem in an expression: a syntax error found by `parseTemplate`, or a value an expression
 * cannot work with found by `evaluateTemplate`. `offset` is the 0-based character offset within
 * the whole template string, so a validator can point at the exact column in the file. Its kind
 * is `invalid_arguments`: a step whose arguments cannot be evaluated fails with it.
 */
export class ExpressionError extends ToolError {
  readonly offset: number;
  /** Where the failing string sits inside a nested value (set by `evaluateDeep`); empty otherwise. */
  readonly path: readonly (string | number)[];

  constructor(message: string, offset: number, options: { cause?: unknown; path?: readonly (string | number)[] } = {}) {
    super('invalid_arguments', message, options.cause === undefined ? {} : { cause: options.cause });
    this.offset = offset;
    this.path = options.path ?? [];
  }

  /** The same problem, `by` characters further into a larger text. */
  shifted(by: number): ExpressionError {
    return new ExpressionError(this.message, this.offset + by, { cause: this.cause, path: this.path });
  }
}
