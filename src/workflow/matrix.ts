import { z } from 'zod';
import { HostError } from '../host/errors.js';

const matrixValue = z.union([z.string().max(1000), z.number(), z.boolean()]);
export type MatrixValue = z.infer<typeof matrixValue>;
const matrixKey = z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'matrix names are identifiers');
const combination = z.record(matrixKey, matrixValue);

/** Most cells one matrix may have (GitHub Actions' own limit). */
export const maxMatrixCells = 256;

/**
 * `matrix:` of a step, as GitHub Actions writes it: each name lists its values, and every
 * combination is a cell; `exclude` removes the combinations it matches, `include` extends
 * matching cells with more values or adds cells of its own.
 */
export const matrixSchema = z
  .object({
    include: z.array(combination).max(maxMatrixCells).optional(),
    exclude: z.array(combination).max(maxMatrixCells).optional(),
  })
  .catchall(z.array(matrixValue).min(1, 'a matrix name needs at least one value').max(maxMatrixCells))
  .describe('Run the step once for each combination of these values (read as matrix.NAME); include and exclude as in GitHub Actions');

export type MatrixFile = z.infer<typeof matrixSchema>;
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
    if (cells.length > maxMatrixCells * 16) throw new Error(`the matrix has more than ${maxMatrixCells} cells`);
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
  if (cells.length === 0) throw new Error('the matrix has no cells: exclude removed every combination');
  if (cells.length > maxMatrixCells) throw new Error(`the matrix has ${cells.length} cells; at most ${maxMatrixCells}`);
  return cells;
}

function matches(cell: MatrixCell, entry: MatrixCell): boolean {
  return Object.entries(entry).every(([name, value]) => cell[name] === value);
}

/** A cell's step id: the matrix step's id and its values, `test (node=20, os=linux)`. */
export function cellId(stepId: string, cell: MatrixCell): string {
  return `${stepId} (${Object.entries(cell)
    .map(([name, value]) => `${name}=${String(value)}`)
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
