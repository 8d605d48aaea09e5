import type { RunStatus } from './context.js';
import { ValueError } from './errors.js';
import { parseFormatFor } from './format.js';
import { compareValues, foldCase, kindOf, toJsonText, toText } from './values.js';

interface FunctionSpec {
  minArguments: number;
  maxArguments: number;
  call(args: readonly unknown[], run: RunStatus): unknown;
}

const functions = {
  success: { minArguments: 0, maxArguments: 0, call: (_args, run) => !run.failed && !run.cancelled },
  failure: { minArguments: 0, maxArguments: 0, call: (_args, run) => run.failed },
  always: { minArguments: 0, maxArguments: 0, call: () => true },
  cancelled: { minArguments: 0, maxArguments: 0, call: (_args, run) => run.cancelled },
  contains: { minArguments: 2, maxArguments: 2, call: ([search, item]) => contains(search, item) },
  startsWith: {
    minArguments: 2,
    maxArguments: 2,
    call: ([text, prefix]) => foldCase(toText(text)).startsWith(foldCase(toText(prefix))),
  },
  endsWith: {
    minArguments: 2,
    maxArguments: 2,
    call: ([text, suffix]) => foldCase(toText(text)).endsWith(foldCase(toText(suffix))),
  },
  format: { minArguments: 1, maxArguments: Number.POSITIVE_INFINITY, call: ([format, ...values]) => formatText(format, values) },
  toJSON: { minArguments: 1, maxArguments: 1, call: ([value]) => toJsonText(value, 2) },
  fromJSON: { minArguments: 1, maxArguments: 1, call: ([text]) => fromJson(text) },
} satisfies Record<string, FunctionSpec>;

export type FunctionName = keyof typeof functions;

export const statusFunctionNames: ReadonlySet<FunctionName> = new Set(['success', 'failure', 'always', 'cancelled']);

const namesByFoldedName = new Map((Object.keys(functions) as FunctionName[]).map((name) => [name.toLowerCase(), name]));

/** Function names are case-insensitive, as in GitHub Actions (`toJson` is `toJSON`). */
export function lookupFunction(name: string): FunctionName | undefined {
  return namesByFoldedName.get(name.toLowerCase());
}

export function functionList(): string {
  return Object.keys(functions).map((name) => `${name}()`).join(', ');
}

/** The arity error for a call with `count` arguments, or undefined when the count is right. */
export function arityProblem(name: FunctionName, count: number): string | undefined {
  const { minArguments, maxArguments }: FunctionSpec = functions[name];
  if (count >= minArguments && count <= maxArguments) return undefined;
  const expected =
    maxArguments === Number.POSITIVE_INFINITY
      ? `at least ${minArguments} argument${minArguments === 1 ? '' : 's'}`
      : `${minArguments} argument${minArguments === 1 ? '' : 's'}`;
  return `${name}() takes ${expected}, got ${count}`;
}

export function callFunction(name: FunctionName, args: readonly unknown[], run: RunStatus): unknown {
  const spec: FunctionSpec = functions[name];
  return spec.call(args, run);
}

/** An array holds an element loosely equal to `item`; otherwise a case-insensitive substring test. */
function contains(search: unknown, item: unknown): boolean {
  if (kindOf(search) === 'array') return (search as readonly unknown[]).some((element) => compareValues('==', element, item));
  return foldCase(toText(search)).includes(foldCase(toText(item)));
}

function formatText(format: unknown, values: readonly unknown[]): string {
  return parseFormatFor(toText(format), values.length).map((piece) => (typeof piece === 'number' ? toText(values[piece]) : piece)).join('');
}

function fromJson(text: unknown): unknown {
  try {
    return JSON.parse(toText(text));
  } catch (error) {
    throw new ValueError(`fromJSON() was given text that is not JSON: ${(error as Error).message}`, { cause: error });
  }
}
