/**
 * A problem in an expression: a syntax error found by `parseTemplate`, or a value an expression
 * cannot work with found by `evaluateTemplate`. `offset` is the 0-based character offset within
 * the whole template string, so a validator can point at the exact column in the file.
 */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
  readonly offset: number;
  /** Where the failing string sits inside a nested value (set by `evaluateDeep`); empty otherwise. */
  readonly path: readonly (string | number)[];

  constructor(message: string, offset: number, options: { cause?: unknown; path?: readonly (string | number)[] } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.offset = offset;
    this.path = options.path ?? [];
  }
}

/**
 * A value an operation cannot handle (invalid JSON for `fromJSON`, a bad format string). Raised
 * by the position-free value helpers; the evaluator turns it into an `ExpressionError` at the
 * offset of the expression that asked for the operation.
 */
export class ValueError extends Error {
  override readonly name = 'ValueError';
}

/** Runs `operation`, locating any `ValueError` it raises at `offset`. */
export function atOffset<T>(offset: number, operation: () => T): T {
  try {
    return operation();
  } catch (error) {
    if (error instanceof ValueError) throw new ExpressionError(error.message, offset, { cause: error });
    throw error;
  }
}
