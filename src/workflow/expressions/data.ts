import { data } from '@actions/expressions';
import { ToolError } from '../../host/errors.js';

type Pair = ReturnType<data.Dictionary['pairs']>[number];

/**
 * rho's values as the official evaluator's data, and back. Contexts are wrapped, not copied:
 * a run's `steps` grows to thousands of entries with arbitrary data, and an expression reads a
 * few of them, so a wrapper converts a property only when it is read. One `ContextWrappers` serves one
 * evaluation, so reading the same object twice yields the same wrapper (objects and arrays
 * compare by identity, as in GitHub Actions).
 */
export class ContextWrappers {
  private readonly wrappers = new WeakMap<object, data.ExpressionData>();

  toData(value: unknown): data.ExpressionData {
    switch (typeof value) {
      case 'string':
        return new data.StringData(value);
      case 'number':
        return new data.NumberData(value);
      case 'boolean':
        return new data.BooleanData(value);
      case 'object':
        return value === null ? new data.Null() : this.wrap(value);
      default:
        return new data.Null();
    }
  }

  private wrap(value: object): data.ExpressionData {
    let wrapper = this.wrappers.get(value);
    if (wrapper === undefined) {
      wrapper = Array.isArray(value) ? new ArrayView(value, this) : new DictionaryView(value as Record<string, unknown>, this);
      this.wrappers.set(value, wrapper);
    }
    return wrapper;
  }
}

/** A JavaScript object read as a case-insensitive dictionary, its properties converted when read. */
class DictionaryView extends data.Dictionary {
  constructor(
    readonly source: Readonly<Record<string, unknown>>,
    private readonly view: ContextWrappers,
  ) {
    super();
  }

  /**
   * Property names are case-insensitive. An exact match is found without scanning (a run's
   * `steps` may hold thousands of entries); otherwise the first key that matches ignoring case.
   */
  override get(key: string): data.ExpressionData | undefined {
    if (Object.hasOwn(this.source, key)) return this.view.toData(this.source[key]);
    const folded = key.toLowerCase();
    const match = Object.keys(this.source).find((candidate) => candidate.toLowerCase() === folded);
    return match === undefined ? undefined : this.view.toData(this.source[match]);
  }

  override values(): data.ExpressionData[] {
    return this.pairs().map((pair) => pair.value);
  }

  override pairs(): Pair[] {
    const seen = new Set<string>();
    const pairs: Pair[] = [];
    for (const [key, value] of Object.entries(this.source)) {
      const folded = key.toLowerCase();
      if (seen.has(folded)) continue;
      seen.add(folded);
      pairs.push({ key, value: this.view.toData(value) });
    }
    return pairs;
  }

  override add(): void {
    throw new ToolError('internal', 'a context is read-only');
  }
}

class ArrayView extends data.Array {
  constructor(
    readonly source: readonly unknown[],
    private readonly view: ContextWrappers,
  ) {
    super();
  }

  override get(index: number): data.ExpressionData {
    return this.view.toData(this.source[index]);
  }

  override values(): data.ExpressionData[] {
    return this.source.map((element) => this.view.toData(element));
  }

  override add(): void {
    throw new ToolError('internal', 'a context is read-only');
  }
}

/**
 * The JavaScript value of an evaluator result: a wrapped context value is returned as it was
 * given (no copy); values the evaluator built (`fromJSON`, `*` filters) are converted.
 */
export function fromData(value: data.ExpressionData): unknown {
  if (value instanceof DictionaryView || value instanceof ArrayView) return value.source;
  switch (value.kind) {
    case data.Kind.Null:
      return null;
    case data.Kind.Boolean:
      return (value as data.BooleanData).value;
    case data.Kind.Number:
      return (value as data.NumberData).value;
    case data.Kind.String:
      return (value as data.StringData).value;
    case data.Kind.Array:
      return (value as data.Array).values().map(fromData);
    default: {
      const record: Record<string, unknown> = {};
      for (const { key, value: element } of (value as data.Dictionary).pairs()) record[key] = fromData(element);
      return record;
    }
  }
}
