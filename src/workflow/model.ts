import type { Template } from './expressions/index.js';
import type { RetryPolicy } from '../host/retry.js';
import type { MatrixCell, MatrixFilter, MatrixSetting } from './matrix.js';
import type { InputDeclaration, WorkflowFile } from './schema.js';
import type { WorkflowSource } from './source.js';

/** A task of some workflow file, as a `uses:` step names it: the file's absolute path and the task (undefined: its default task). */
export interface TaskReference {
  file: string;
  task: string | undefined;
}

/** Where something is in a workflow file. */
export interface SourcePosition {
  file: string;
  line: number;
  col: number;
}

/** What a `uses:` step says before it is expanded: the task it runs and where its parts are, for problems found once that task is known. */
export interface UsesCall {
  target: TaskReference;
  /** The `uses:` text as written. */
  text: string;
  at: SourcePosition;
  /** Where each `with:` value is. */
  withAt: Readonly<Record<string, SourcePosition>>;
  /** The `with:` values that may carry text from outside the workflow's author, and why. */
  withUntrusted: Readonly<Record<string, string>>;
}

/** `sources:` and `generates:` of a whole task: it is up to date, or each of its steps runs. */
export interface TaskCheck {
  sources: readonly string[];
  generates: readonly string[];
}

/** A task after validation, before expansion: what a `uses:` step of any file expands into. */
export interface CompiledTask {
  reference: TaskReference;
  /** Its workflow file as problems name it. */
  file: string;
  /** What `inputs.*` reads inside it: the file's inputs and the task's own. */
  inputs: Readonly<Record<string, InputDeclaration>>;
  /** `outputs:`: what a calling step reads as its data. */
  outputs: Readonly<Record<string, Template>>;
  /** The outputs that may carry text from outside the workflow's author, and why. */
  outputsUntrusted: Readonly<Record<string, string>>;
  /** `run: once` (the default): used again in a run with the same inputs, it does not run again. */
  once: boolean;
  /** `sources:` of the task: whether it is up to date is decided for the whole of it. */
  check?: TaskCheck;
  steps: readonly CompiledStep[];
}

/** The nested group a step belongs to: the calling step's path id and what it runs. */
export interface NestedScope {
  /** The path id of the `uses:` step (or its matrix cell) whose group this is. */
  id: string;
  /** The task it runs, as messages and hooks name it. */
  task: string;
}

/** One step after validation: everything the runner needs, with expressions parsed. */
export interface CompiledStep {
  index: number;
  /** The step's path id: its id in its task, after the path of the nested groups it is in (`release/build`). */
  id: string;
  /** Its id in its own task: what `steps.<id>` names beside it. */
  localId: string;
  /** The nested group it is in; undefined for a step of the task the run runs. */
  scope?: NestedScope;
  name: string;
  /** The tool it calls; empty for a `uses:` step and a group. */
  tool: string;
  /** Where the step starts in its workflow file. */
  line: number;
  /** Where it names a tool the registry does not know (`tool:`, else the step itself), for notes about that tool. */
  toolAt?: { line: number; col: number };
  /** Its workflow file, when that is not the run's (a step of a called file). */
  file?: string;
  /**
   * Declared MCP servers whose tools' declarations decide whether a code argument of this step
   * (a script, a command, an interpreter's code) reads outside content: a run starts no step
   * before they run and that is checked.
   */
  checkedWithServers?: readonly string[];
  /** The raw `with:` value; strings may hold templates evaluated when the step is ready. */
  with: Record<string, unknown>;
  /** Whether `with:` holds any expression (then it is validated against the tool only at run time). */
  withHasExpressions: boolean;
  /** Whether `with:` reads another step's result (then it can be prepared only at run time). */
  argumentsReadSteps: boolean;
  condition: Template | boolean | undefined;
  /** The condition uses success()/failure()/always()/cancelled(): it decides alone, after every earlier step. */
  conditionUsesStatus: boolean;
  /**
   * In a group whose `uses:` step has such a condition (`if: always()`), which runs after an
   * earlier failure: the group whose own failures alone skip this step. Like a condition that
   * reads statuses, it decides after every earlier step.
   */
  failureScope?: string;
  /** Indices of earlier steps this one waits for (`needs` and `steps.X` references). */
  dependencies: readonly number[];
  async: boolean;
  continueOnError: boolean;
  timeoutMs: number | undefined;
  /** `retry:` (the step's, else its task's or file's default); undefined: one attempt. */
  retry: RetryPolicy | undefined;
  resources: { shared: readonly string[]; exclusive: readonly string[] } | undefined;
  /** `writes:` (the step's, else its task's or file's default): narrows where the step's processes may write; undefined: what the policy grants. */
  writes: readonly string[] | undefined;
  /** Why the step does not run on this platform (its `platforms:` or its task's leave it out). */
  platformSkip?: string;
  /** A matrix step before expansion: its cells (the compiled task holds the cells and the group instead). */
  cells?: readonly MatrixCell[];
  /** A matrix step whose matrix is, or holds, expressions: its cells are known when it is ready. */
  dynamicMatrix?: { matrix: MatrixSetting /** Why its values may come from outside the workflow's author. */; untrusted?: string };
  /** A matrix cell: what `matrix.*` reads. */
  matrix?: MatrixCell;
  /** A cell of a matrix with `fail_fast: false`: its failure stops nothing until the matrix's combined status is known. */
  deferFailure?: boolean;
  /** A `uses:` step before expansion. */
  uses?: UsesCall;
  /**
   * What a matrix or a `uses:` step becomes after its members (the cells, or the called task's
   * steps): no call of its own, the members' combined status. A `uses:` group keeps its `with:`
   * and `if:`, evaluated when its first member is ready, and its task's outputs, its data.
   */
  group?: MatrixGroup | UsesGroup;
  /** `sources:` globs: the step has an up-to-date check only when they are declared. */
  sources: readonly string[] | undefined;
  /** `generates:` globs. */
  generates: readonly string[];
}

/** A matrix step after expansion: its cells, or, for a matrix known only when its step is ready, what they are expanded from. */
export interface MatrixGroup {
  kind: 'matrix';
  members: readonly number[];
  /** The matrix step and where it is, while its cells are not known yet. */
  later?: { step: CompiledStep; within: ExpansionScope };
}

/** Where steps being placed are: inside which nested group, and what that group passes down. */
export interface ExpansionScope {
  /** Path ids of the steps here start with it: `release/`. */
  prefix: string;
  scope: NestedScope | undefined;
  /** What the calling step waits for: every step of the group waits for it too. */
  dependencies: readonly number[];
  /** The calling step has continue_on_error: a failure inside does not stop the run. */
  continueOnError: boolean;
  /** The calling step is a cell of a matrix with fail_fast: false. */
  deferFailure: boolean;
  /** The group whose failures alone skip these steps, when a calling step's `if:` reads statuses. */
  failureScope: string | undefined;
  /** The file the steps are in, when it is not the run's. */
  file: string | undefined;
}

/** A `uses:` step (or one cell of it) after expansion. */
export interface UsesGroup {
  kind: 'uses';
  members: readonly number[];
  /** The scope its members are in. */
  scope: NestedScope;
  inputs: Readonly<Record<string, InputDeclaration>>;
  outputs: Readonly<Record<string, Template>>;
  /** The task's `sources:`: its members run only when it is not up to date. */
  check?: TaskCheck;
  /**
   * The index of the group that ran the same task with the same inputs earlier in the run: this
   * one has no members, waits for that one and records its outcome (`run: once`).
   */
  repeats?: number;
}

/** What files a run's `uses:` steps call add to its policy: only rules that ask or deny. */
export interface CalledRules {
  ask: readonly string[];
  deny: readonly string[];
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
  /** The task's own inputs, in order: its parameters (`rho run FILE TASK VALUE...`). */
  parameters: Readonly<Record<string, InputDeclaration>>;
  /** The task's `sources:`: the run's steps run only when it is not up to date. */
  check?: TaskCheck;
  /** The task's `outputs:`: what a successful run of it returns (`RunSummary.outputs`). */
  outputs: Readonly<Record<string, Template>>;
  steps: readonly CompiledStep[];
  /** The `deny:` and `ask:` rules of the files its `uses:` steps call, added to the run's policy. */
  calledRules: CalledRules;
  /** The other files (absolute paths) whose tasks its steps run. */
  calledFiles: readonly string[];
  /** Expands the cells of a matrix known only when its step is ready, numbering them from `firstIndex`. */
  expandCells(group: CompiledStep, cells: readonly MatrixCell[], firstIndex: number): { steps: CompiledStep[]; members: number[] };
}
