import { data } from '@actions/expressions';
import type { FunctionDefinition, FunctionInfo } from '@actions/expressions/funcs/info';
import type { RunStatus } from './context.js';
import { caseConversions, caseDescriptions } from './text-case.js';
import { ToolError } from '../../host/errors.js';

/** The functions GitHub Actions provides, as the official evaluator names them. */
const githubFunctionNames = ['contains', 'startsWith', 'endsWith', 'format', 'join', 'toJSON', 'fromJSON', 'case'] as const;

/** GitHub Actions' job-status functions; rho answers them from the run so far. */
const statusFunctionNames = ['success', 'failure', 'always', 'cancelled'] as const;

/**
 * rho's own functions. GitHub Actions names its functions in camelCase without underscores, so
 * a `rho_` prefix can never collide with one it adds later.
 */
const caseNames = Object.keys(caseConversions) as (keyof typeof caseConversions)[];

const statusFunctionSet: ReadonlySet<string> = new Set(statusFunctionNames);

export function isStatusFunction(name: string): boolean {
  return statusFunctionSet.has(name.toLowerCase());
}

const rhoFunctions: readonly FunctionDefinition[] = [
  {
    name: 'rho_trim',
    description: 'rho_trim(text): text without leading and trailing whitespace',
    minArgs: 1,
    maxArgs: 1,
    call: (text) => new data.StringData(text!.coerceString().trim()),
  },
  {
    name: 'rho_split',
    description: 'rho_split(text, separator): the pieces of text between occurrences of separator (exact, case-sensitive)',
    minArgs: 2,
    maxArgs: 2,
    call: (text, separator) => {
      const by = nonEmpty('separator', separator!);
      return new data.Array(
        ...text!
          .coerceString()
          .split(by)
          .map((piece) => new data.StringData(piece)),
      );
    },
  },
  {
    name: 'rho_replace',
    description: 'rho_replace(text, search, replacement): text with every occurrence of search (exact, case-sensitive) replaced',
    minArgs: 3,
    maxArgs: 3,
    call: (text, search, replacement) => {
      const find = nonEmpty('search text', search!);
      return new data.StringData(text!.coerceString().replaceAll(find, () => replacement!.coerceString()));
    },
  },
  ...caseNames.map(
    (name): FunctionDefinition => ({
      name: `rho_${name}`,
      description: caseDescriptions[name],
      minArgs: 1,
      maxArgs: 1,
      call: (text) => new data.StringData(caseConversions[name](text!.coerceString())),
    }),
  ),
];

function nonEmpty(what: string, value: data.ExpressionData): string {
  const text = value.coerceString();
  if (text === '') throw new ToolError('invalid_arguments', `needs a non-empty ${what}`);
  return text;
}

/** What the parser needs to know of the functions beyond GitHub's built-in ones. */
export const extensionFunctionInfo: readonly FunctionInfo[] = [
  ...statusFunctionNames.map((name) => ({ name, minArgs: 0, maxArgs: 0 })),
  ...rhoFunctions.map(({ name, minArgs, maxArgs }) => ({ name, minArgs, maxArgs })),
];

/** The implementations of the status functions for one run state, and rho's functions, by lower-case name. */
export function extensionFunctions(run: RunStatus): Map<string, FunctionDefinition> {
  const status = (name: string, value: boolean): FunctionDefinition => ({ name, minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(value) });
  const functions = new Map<string, FunctionDefinition>([
    ['success', status('success', !run.failed && !run.cancelled)],
    ['failure', status('failure', run.failed)],
    ['always', status('always', true)],
    ['cancelled', status('cancelled', run.cancelled)],
  ]);
  for (const definition of rhoFunctions) functions.set(definition.name, definition);
  return functions;
}

/** Every function an expression may call, for messages. */
export function functionList(): string {
  return [...githubFunctionNames, ...statusFunctionNames, ...rhoFunctions.map((definition) => definition.name)].map((name) => `${name}()`).join(', ');
}
