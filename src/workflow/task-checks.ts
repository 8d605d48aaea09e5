import { createHash } from 'node:crypto';
import { ToolError } from '../host/errors.js';
import type { ToolCall } from '../host/prepared-call.js';
import type { CompiledStep, CompiledWorkflow, TaskCheck } from './model.js';
import type { UsesGroupStep } from './nested.js';
import type { CheckVerdict, PendingRecord, UpToDateChecks, UpToDateSource } from './up-to-date/checks.js';
import { canonicalJson } from './up-to-date/fingerprint.js';

/** The scope of the run's own task. */
const rootScope = '';

/** What a task's check is made of: a step-shaped subject for the up-to-date checks, and its call. */
export interface TaskCheckSubject {
  step: CompiledStep;
  call: ToolCall;
}

/**
 * A whole task's up-to-date check as the step checks make them: keyed by the task (so `--force-step
 * TASK` forces it), its inputs and its definition (its steps' tools, arguments and conditions,
 * so an edited task runs again) as the call's arguments, its `sources:` and `generates:`.
 */
export function taskCheckSubject(options: {
  task: string;
  check: TaskCheck;
  inputs: Readonly<Record<string, unknown>>;
  members: readonly CompiledStep[];
  /** A step of the task, whose shape the subject takes. */
  base: CompiledStep;
  stepId: string;
}): TaskCheckSubject {
  const definition = options.members.map((member) => [
    member.localId,
    member.tool,
    member.with,
    typeof member.condition === 'object' ? member.condition.source : (member.condition ?? null),
  ]);
  const args = { inputs: options.inputs, definition: createHash('sha256').update(canonicalJson(definition)).digest('hex') };
  const step: CompiledStep = { ...options.base, id: options.task, tool: 'task', sources: options.check.sources, generates: options.check.generates };
  return { step, call: { id: `${options.task}#task`, tool: 'task', args, stepId: options.stepId } };
}

/** The tasks of a run whose `sources:` make one check of them: `--force-step NAME` forces each. */
export function checkedTaskNames(workflow: CompiledWorkflow): string[] {
  const groups = workflow.steps.flatMap((step) => (step.group?.kind === 'uses' && step.group.check ? [step.group.scope.task] : []));
  return [...(workflow.check ? [workflow.task ?? '(default)'] : []), ...groups];
}

/** Why a task did not run, and where its outputs are. */
export interface TaskUpToDate {
  reason: string;
  source: UpToDateSource;
}

type TaskVerdict =
  | { kind: 'none' }
  | { kind: 'up_to_date'; upToDate: TaskUpToDate }
  | { kind: 'refused'; error: ToolError }
  | { kind: 'stale'; subject: TaskCheckSubject; pending: PendingRecord };

/**
 * The up-to-date checks of whole tasks (`sources:` on a task) in one run: each is made once,
 * when the first of its steps is ready; a task that is up to date has none of its steps run, and
 * one that ran and succeeded is recorded once every step of it has finished.
 */
export class TaskChecks {
  readonly #verdicts = new Map<string, Promise<TaskVerdict>>();
  readonly #decided = new Map<string, TaskVerdict>();

  constructor(
    private readonly options: {
      checks: UpToDateChecks | undefined;
      workflow: CompiledWorkflow;
      groups: ReadonlyMap<string, UsesGroupStep>;
      /** The inputs of the task running in a scope (its group's entry must be decided). */
      inputsOf(scope: string): Readonly<Record<string, unknown>>;
      signal: AbortSignal;
    },
  ) {}

  /**
   * Why `step` does not run because a task it is in is up to date (the outermost such task
   * decides), or the refusal its check met; undefined when it runs.
   */
  async blocking(step: CompiledStep): Promise<{ upToDate: TaskUpToDate } | { refused: ToolError } | undefined> {
    const scopes: string[] = [];
    for (let scope = step.scope; scope; scope = this.options.groups.get(scope.id)?.scope) scopes.unshift(scope.id);
    for (const scope of [rootScope, ...scopes]) {
      const verdict = await this.#verdict(scope);
      if (verdict.kind === 'up_to_date') return { upToDate: verdict.upToDate };
      if (verdict.kind === 'refused') return { refused: verdict.error };
    }
    return undefined;
  }

  /** Why a group's task was up to date, once its check is made; undefined otherwise. */
  upToDate(scope: string): TaskUpToDate | undefined {
    const verdict = this.#decided.get(scope);
    return verdict?.kind === 'up_to_date' ? verdict.upToDate : undefined;
  }

  /** Records a task whose steps have all finished (`succeeded`: its group, or the run, succeeded). */
  async finished(scope: string, succeeded: boolean): Promise<void> {
    const verdict = this.#decided.get(scope);
    if (verdict?.kind !== 'stale' || !this.options.checks) return;
    if (succeeded) await this.options.checks.succeeded(verdict.subject.step, verdict.subject.call, verdict.pending, this.options.signal);
    else this.options.checks.failed(verdict.pending);
  }

  #verdict(scope: string): Promise<TaskVerdict> {
    let verdict = this.#verdicts.get(scope);
    if (!verdict) {
      verdict = this.#check(scope).then((decided) => {
        this.#decided.set(scope, decided);
        return decided;
      });
      this.#verdicts.set(scope, verdict);
    }
    return verdict;
  }

  async #check(scope: string): Promise<TaskVerdict> {
    const { checks, workflow, groups } = this.options;
    const group = scope === rootScope ? undefined : groups.get(scope);
    const check = group ? group.group.check : workflow.check;
    if (!checks || !check) return { kind: 'none' };
    const members = workflow.steps.filter((step) => scope === rootScope || step.id.startsWith(`${scope}/`));
    const task = group ? group.group.scope.task : (workflow.task ?? '(default)');
    const subject = taskCheckSubject({ task, check, inputs: this.options.inputsOf(scope), members, base: group ?? workflow.steps[0]!, stepId: group?.id ?? task });
    const verdict: CheckVerdict = await checks.check(subject.step, subject.call, this.options.signal);
    if (verdict.kind === 'refused') return { kind: 'refused', error: new ToolError(verdict.error.kind, `checking whether task ${task} is up to date: ${verdict.error.message}`) };
    if (verdict.kind === 'up_to_date') return { kind: 'up_to_date', upToDate: { reason: `task ${task} is up to date: ${verdict.reason}`, source: verdict.source } };
    await checks.starting(verdict.pending);
    return { kind: 'stale', subject, pending: verdict.pending };
  }
}
