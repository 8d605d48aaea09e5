import type { Template } from './expressions/index.js';
import type { WorkflowFile } from './schema.js';
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
  resources: { shared: readonly string[]; exclusive: readonly string[] } | undefined;
  /** `writes:`: narrows where the step's processes may write; undefined: what the policy grants. */
  writes: readonly string[] | undefined;
}

export interface CompiledWorkflow {
  source: WorkflowSource;
  file: WorkflowFile;
  steps: readonly CompiledStep[];
}
