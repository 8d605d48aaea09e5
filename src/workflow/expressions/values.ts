import { ValueError } from './errors.js';

/**
 * The value model of expressions, after GitHub Actions: JSON values, loose comparison through
 * numbers when types differ, case-insensitive string comparison, and property access that
 * yields null instead of failing.
 */
export type ValueKind = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

export function kindOf(value: unknown): ValueKind {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    default:
      return Array.isArray(value) ? 'array' : 'object';
  }
}

/** GitHub Actions truthiness: false, 0, -0, NaN, '' and null are falsy; everything else is truthy. */
export function isTruthy(value: unknown): boolean {
  switch (kindOf(value)) {
    case 'null':
      return false;
    case 'boolean':
      return value as boolean;
    case 'number':
      return value !== 0 && !Number.isNaN(value);
    case 'string':
      return value !== '';
    default:
      return true;
  }
}

const decimalText = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const hexadecimalText = /^0[xX][0-9a-fA-F]+$/;

/** null → 0, booleans → 1/0, numeric text → its number ('' → 0), anything else → NaN. */
export function toNumber(value: unknown): number {
  switch (kindOf(value)) {
    case 'null':
      return 0;
    case 'boolean':
      return value ? 1 : 0;
    case 'number':
      return value as number;
    case 'string': {
      const text = (value as string).trim();
      if (text === '') return 0;
      if (hexadecimalText.test(text)) return Number.parseInt(text.slice(2), 16);
      return decimalText.test(text) ? Number(text) : Number.NaN;
    }
    default:
      return Number.NaN;
  }
}

/** How a value reads as text: null → '', arrays and objects → compact JSON. */
export function toText(value: unknown): string {
  switch (kindOf(value)) {
    case 'null':
      return '';
    case 'string':
      return value as string;
    case 'number':
      return Object.is(value, -0) ? '0' : String(value);
    case 'boolean':
      return String(value);
    default:
      return toJsonText(value);
  }
}

export function toJsonText(value: unknown, indent?: number): string {
  try {
    return JSON.stringify(value ?? null, null, indent) ?? 'null';
  } catch (error) {
    throw new ValueError(`value cannot be written as JSON: ${(error as Error).message}`, { cause: error });
  }
}

/** Case folding for the case-insensitive string operations. */
export function foldCase(text: string): string {
  return text.toUpperCase();
}

export type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

/**
 * Loose comparison. Values of one kind compare directly (strings ignoring case, arrays and
 * objects only by identity); values of different kinds compare as numbers. NaN is unordered,
 * so every comparison with it is false except `!=`.
 */
export function compareValues(operator: ComparisonOperator, left: unknown, right: unknown): boolean {
  const order = orderOf(left, right);
  switch (operator) {
    case '==':
      return order === 0;
    case '!=':
      return order !== 0;
    case '<':
      return order !== undefined && order < 0;
    case '<=':
      return order !== undefined && order <= 0;
    case '>':
      return order !== undefined && order > 0;
    case '>=':
      return order !== undefined && order >= 0;
  }
}

/** -1, 0 or 1; undefined when the two values have no order. */
function orderOf(left: unknown, right: unknown): number | undefined {
  const kind = kindOf(left);
  if (kind === kindOf(right)) {
    if (kind === 'null') return 0;
    if (kind === 'string') return ordinal(foldCase(left as string), foldCase(right as string));
    if (kind === 'array' || kind === 'object') return left === right ? 0 : undefined;
  }
  return orderNumbers(toNumber(left), toNumber(right));
}

function orderNumbers(left: number, right: number): number | undefined {
  if (Number.isNaN(left) || Number.isNaN(right)) return undefined;
  return ordinal(left, right);
}

function ordinal<T extends string | number>(left: T, right: T): number {
  if (left < right) return -1;
  return left > right ? 1 : 0;
}

/** The property name a key selects on an object: `inputs[1]` reads the input named "1". */
export function keyText(key: unknown): string {
  return toText(key);
}

/**
 * `container[key]`: an element of an array (the key a whole number, or its digits) or an own
 * property of an object. Anything missing, and any access on other values, yields null.
 */
export function member(container: unknown, key: unknown): unknown {
  const kind = kindOf(container);
  if (kind === 'array') {
    const elements = container as readonly unknown[];
    const index = arrayIndex(key);
    return Number.isInteger(index) && index >= 0 && index < elements.length ? (elements[index] ?? null) : null;
  }
  if (kind !== 'object') return null;
  const record = container as Record<string, unknown>;
  const name = keyText(key);
  return Object.hasOwn(record, name) ? (record[name] ?? null) : null;
}

function arrayIndex(key: unknown): number {
  if (typeof key === 'number') return key;
  return typeof key === 'string' && /^\d+$/.test(key) ? Number(key) : Number.NaN;
}
