import { z } from 'zod';
import { HostError } from '../host/errors.js';
import { ToolError } from '../host/errors.js';

const matrixValue = z.union([z.string().max(1000), z.number(), z.boolean()]);
export type MatrixValue = z.infer<typeof matrixValue>;
const matrixKey = z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'matrix names are identifiers');
const combination = z.record(matrixKey, matrixValue);

/** Most cells one matrix may have (GitHub Actions' own limit). */
export const maxMatrixCells = 256;

/** A matrix as its values are: each name lists its values; `include` and `exclude` list combinations. */
export const literalMatrixSchema = z
  .object({
    include: z.array(combination).max(maxMatrixCells).optional(),
    exclude: z.array(combination).max(maxMatrixCells).optional(),
  })
  .catchall(z.array(matrixValue).min(1, 'a matrix name needs at least one value').max(maxMatrixCells));

/** One `${{ … }}` whose value is known when the step is ready: a list computed by an earlier step, an array input. */
const wholeExpression = z
  .string()
  .max(65_536)
  .regex(/^\s*\$\{\{[\s\S]*\}\}\s*$/, 'a matrix written as text is one ${{ … }} expression');

/**
 * `matrix:` of a step, as GitHub Actions writes it: each name lists its values, and every
 * combination is a cell; `exclude` removes the combinations it matches, `include` extends
 * matching cells with more values or adds cells of its own. The whole matrix, or the list of a
 * name, `include` or `exclude`, may be one `${{ … }}` (`${{ fromJSON(steps.list.output) }}`,
 * `${{ inputs.files }}`): its cells are then known, and expanded, when the step is ready.
 */
export const matrixSchema = z
  .union([
    wholeExpression,
    z
      .object({
        include: z.union([z.array(combination).max(maxMatrixCells), wholeExpression]).optional(),
        exclude: z.union([z.array(combination).max(maxMatrixCells), wholeExpression]).optional(),
      })
      .catchall(z.union([z.array(matrixValue).min(1, 'a matrix name needs at least one value').max(maxMatrixCells), wholeExpression])),
  ])
  .describe(
    'Run the step once for each combination of these values (read as matrix.NAME); include and exclude as in GitHub Actions; the whole matrix or any list of it may be one ${{ }} expression, evaluated when the step is ready',
  );

export type MatrixFile = z.infer<typeof literalMatrixSchema>;
export type MatrixSetting = z.infer<typeof matrixSchema>;

/** Whether a matrix, or a list of it, is an expression: its cells are known only when its step is ready. */
export function isDynamicMatrix(matrix: MatrixSetting): boolean {
  return typeof matrix === 'string' || Object.values(matrix).some((value) => typeof value === 'string');
}

/**
 * The cells of a matrix whose expressions have been evaluated: it must then have the shape of a
 * matrix written out (a list of values for each name, combinations for include and exclude).
 */
export function evaluatedMatrixCells(value: unknown): MatrixCell[] {
  // A list of combinations is the cells themselves, as include: lists them.
  const parsed = literalMatrixSchema.safeParse(Array.isArray(value) && value.every((entry) => typeof entry === 'object' && entry !== null) ? { include: value } : value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? ` at ${issue.path.map(String).join('.')}` : '';
    throw new ToolError(
      'invalid_arguments',
      `the matrix evaluated to ${describeValue(value)}, not a matrix${where}: ${issue.message} (a matrix maps each name to a list of values, as { node: [20, 22] })`,
    );
  }
  return matrixCells(parsed.data);
}

function describeValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
export type MatrixCell = Readonly<Record<string, MatrixValue>>;

/**
 * The cells of a matrix, in the order GitHub Actions runs them: the product of the named lists
 * (first name outermost), less what `exclude` matches, then `include` applied. Throws when
 * there are no cells or too many.
 */
export function matrixCells(matrix: MatrixFile): MatrixCell[] {
  const { include = [], exclude = [], ...lists } = matrix;
  const names = Object.keys(lists);
  let cells: Record<string, MatrixValue>[] = names.length > 0 ? [{}] : [];
  for (const name of names) {
    cells = cells.flatMap((cell) => (lists[name] as MatrixValue[]).map((value) => ({ ...cell, [name]: value })));
    if (cells.length > maxMatrixCells * 16) throw new ToolError('invalid_arguments', `the matrix has more than ${maxMatrixCells} cells`);
  }
  cells = cells.filter((cell) => !exclude.some((entry) => matches(cell, entry)));
  const original = cells.map((cell) => ({ ...cell }));
  for (const entry of include) {
    let extended = false;
    original.forEach((base, position) => {
      // An include entry may add values to a cell, never change one of its original values.
      if (Object.entries(entry).every(([name, value]) => !(name in base) || base[name] === value)) {
        Object.assign(cells[position]!, entry);
        extended = true;
      }
    });
    if (!extended) cells.push({ ...entry });
  }
  if (cells.length === 0) throw new ToolError('invalid_arguments', 'the matrix has no cells: exclude removed every combination');
  if (cells.length > maxMatrixCells) throw new ToolError('invalid_arguments', `the matrix has ${cells.length} cells; at most ${maxMatrixCells}`);
  return cells;
}

function matches(cell: MatrixCell, entry: MatrixCell): boolean {
  return Object.entries(entry).every(([name, value]) => cell[name] === value);
}

/** Longest value a cell's id shows: a value computed at run time can be long. */
const shownValueLength = 100;

/**
 * A cell's step id: the matrix step's id and its values, `test (node=20, os=linux)`. Control
 * characters (a value computed at run time may hold a line break) show as `?`, and a long value
 * is cut, so an id is always one readable line.
 */
export function cellId(stepId: string, cell: MatrixCell): string {
  const shown = (value: MatrixValue) => {
    const text = String(value).replace(/\p{Cc}/gu, '?');
    return text.length > shownValueLength ? `${text.slice(0, shownValueLength - 1)}…` : text;
  };
  return `${stepId} (${Object.entries(cell)
    .map(([name, value]) => `${name}=${shown(value)}`)
    .join(', ')})`;
}

/** `--matrix NAME=VALUE` flags: which cells a run keeps (a cell without NAME is kept). */
export type MatrixFilter = Readonly<Record<string, string>>;

export function parseMatrixFilter(raw: readonly string[]): MatrixFilter {
  const filter: Record<string, string> = {};
  for (const entry of raw) {
    const separator = entry.indexOf('=');
    if (separator <= 0) throw new HostError('usage', `--matrix "${entry}" must be NAME=VALUE`);
    filter[entry.slice(0, separator)] = entry.slice(separator + 1);
  }
  return filter;
}

export function cellSelected(cell: MatrixCell, filter: MatrixFilter): boolean {
  return Object.entries(filter).every(([name, value]) => !(name in cell) || String(cell[name]) === value);
}
