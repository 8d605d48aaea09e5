import type { Template } from './expressions/index.js';
import type { RetryPolicy } from '../host/retry.js';
import type { MatrixCell, MatrixFilter } from './matrix.js';
import type { InputDeclaration, WorkflowFile } from './schema.js';
import type { WorkflowSource } from './source.js';

/** One step after validation: everything the runner needs, with expressions parsed. */
export interface CompiledStep {
  index: number;
  id: string;
  name: string;
  tool: string;
  /** Where the step starts in the workflow file. */
  line: number;
  /** The raw `with:` value; strings may hold templates evaluated when the step is ready. */
  with: Record<string, unknown>;
  /** Whether `with:` holds any expression (then it is validated against the tool only at run time). */
  withHasExpressions: boolean;
  /** Whether `with:` reads another step's result (then it can be prepared only at run time). */
  argumentsReadSteps: boolean;
  condition: Template | boolean | undefined;
  /** The condition uses success()/failure()/always()/cancelled(): it decides alone, after every earlier step. */
  conditionUsesStatus: boolean;
  /** Indices of earlier steps this one waits for (`needs` and `steps.X` references). */
  dependencies: readonly number[];
  async: boolean;
  continueOnError: boolean;
  timeoutMs: number | undefined;
  /** `retry:` (the step's, else its task's or file's default); undefined: one attempt. */
  retry: RetryPolicy | undefined;
  resources: { shared: readonly string[]; exclusive: readonly string[] } | undefined;
  /** `writes:`: narrows where the step's processes may write; undefined: what the policy grants. */
  writes: readonly string[] | undefined;
  /** A matrix step before expansion: its cells (the compiled task holds the cells and the group instead). */
  cells?: readonly MatrixCell[];
  /** A matrix cell: what `matrix.*` reads. */
  matrix?: MatrixCell;
  /** A cell of a matrix with `fail_fast: false`: its failure stops nothing until the matrix's combined status is known. */
  deferFailure?: boolean;
  /** The step a matrix expands into after its cells: no call of its own, the cells' combined status. */
  group?: { kind: 'matrix'; members: readonly number[] };
  /** `sources:` globs: the step has an up-to-date check only when they are declared. */
  sources: readonly string[] | undefined;
  /** `generates:` globs. */
  generates: readonly string[];
}

export interface CompiledWorkflow {
  source: WorkflowSource;
  file: WorkflowFile;
  /** The task these steps are (`rho run FILE TASK`); undefined for the default task. */
  task: string | undefined;
  /** `--matrix NAME=VALUE`: the cells the run keeps. */
  matrixFilter: MatrixFilter;
  /** What `-i` may set: the file's inputs and the task's own. */
  inputs: Readonly<Record<string, InputDeclaration>>;
  steps: readonly CompiledStep[];
}
