import { ToolError } from '../host/errors.js';
import type { StepError, StepStatus } from '../host/events.js';
import { checkCallInputs } from './call-inputs.js';
import { evaluateDeep, evaluateTemplate, isTruthy, type ExpressionContext } from './expressions/index.js';
import { groupRecord } from './groups.js';
import type { InputValue } from './inputs.js';
import type { Delegation } from '../host/hooks/delegation.js';
import type { CompiledStep, NestedScope, UsesGroup } from './model.js';

/**
 * Whether a nested group runs, decided once, when its first step is ready: the `uses:` step's
 * `if:`, then its `with:` evaluated and checked against the called task's inputs.
 */
export type GroupEntry =
  | { kind: 'run'; inputs: Record<string, InputValue> }
  | { kind: 'skipped'; reason: string; membersReason: string }
  | { kind: 'failed'; error: StepError; membersReason: string };

/** Decides the entry of a `uses:` group, in the context of the scope its step is in. */
export function enterGroup(step: UsesGroupStep, context: ExpressionContext): GroupEntry {
  if (step.platformSkip !== undefined) return { kind: 'skipped', reason: step.platformSkip, membersReason: `${step.id} was skipped (${step.platformSkip})` };
  try {
    const run = step.condition === undefined ? true : typeof step.condition === 'boolean' ? step.condition : isTruthy(evaluateTemplate(step.condition, context));
    if (!run) return { kind: 'skipped', reason: 'its if: condition is false', membersReason: `${step.id} was skipped (its if: condition is false)` };
    const values = evaluateDeep(step.with, context) as Record<string, unknown>;
    const checked = checkCallInputs(values, step.group.inputs, step.group.scope.task);
    if (checked.problems.length > 0) throw new ToolError('invalid_arguments', checked.problems.map((problem) => problem.message).join('; '));
    return { kind: 'run', inputs: checked.inputs };
  } catch (error) {
    const message = `step ${step.id}: ${(error as Error).message}`;
    return { kind: 'failed', error: { kind: 'invalid_arguments', message }, membersReason: `${step.id} could not start` };
  }
}

export type UsesGroupStep = CompiledStep & { group: UsesGroup };

/**
 * How a use of a task that ran earlier in the run with the same inputs is recorded: as that run
 * was, with where it ran (`run: once`).
 */
export function repeatedRecord(earlier: { id: string; status: StepStatus; data: unknown; error?: StepError; reason?: string }): {
  status: StepStatus;
  data: unknown;
  reason: string;
  error?: StepError;
} {
  const reason = `the same task with the same inputs ran as ${earlier.id}${earlier.reason === undefined ? '' : ` (${earlier.reason})`}`;
  return { status: earlier.status, data: earlier.data, reason, ...(earlier.error && { error: earlier.error }) };
}

/** Who delegated a call of a nested group, for the hooks: the step that runs the group, and its task. */
export function nestedDelegation(scope: NestedScope): Delegation {
  return { role: 'child', parent: scope.id, task: scope.task };
}

/**
 * The entry of the nested group `scope`, decided once (kept in `decided`): a group inside a group
 * that does not run does not run either, for the same reason; otherwise `enter` decides it, or
 * returns undefined when it cannot be known yet (a plan, for a `with:` that reads step results).
 */
export function entryOf(
  scope: string,
  groups: ReadonlyMap<string, UsesGroupStep>,
  decided: Map<string, GroupEntry | undefined>,
  enter: (group: UsesGroupStep) => GroupEntry | undefined,
): GroupEntry | undefined {
  if (decided.has(scope)) return decided.get(scope);
  const group = groups.get(scope)!;
  const outer = group.scope && entryOf(group.scope.id, groups, decided, enter);
  const entry =
    group.scope && outer === undefined
      ? undefined
      : outer && outer.kind !== 'run'
        ? { kind: 'skipped' as const, reason: outer.membersReason, membersReason: outer.membersReason }
        : enter(group);
  decided.set(scope, entry);
  return entry;
}

/** The `uses:` groups of a run's steps, by the id of the scope their members are in. */
export function usesGroups(steps: readonly CompiledStep[]): Map<string, UsesGroupStep> {
  return new Map(steps.filter((step): step is UsesGroupStep => step.group?.kind === 'uses').map((step) => [step.group.scope.id, step]));
}

interface MemberRecord {
  status: StepStatus;
  data: unknown;
}

/**
 * How a `uses:` group is recorded once its members have finished: as its entry decided when it
 * did not run; else the members' combined status (a member that failed or was denied with
 * continue_on_error counts as a success), with the called task's outputs, evaluated in its own scope, as data.
 */
export function usesGroupRecord(
  step: UsesGroupStep,
  entry: GroupEntry | undefined,
  members: readonly { record: MemberRecord; continueOnError: boolean }[],
  scopeContext: (inputs: Record<string, InputValue>) => ExpressionContext,
): { status: StepStatus; data: unknown; reason?: string; error?: StepError } {
  if (entry?.kind === 'failed') return { status: 'failure', data: null, error: entry.error };
  if (entry?.kind === 'skipped') return { status: 'skipped', data: null, reason: entry.reason };
  const counted = members.map(({ record, continueOnError }) => ({
    record: continueOnError && (record.status === 'failure' || record.status === 'denied') ? { ...record, status: 'success' as const } : record,
    matrix: undefined,
  }));
  const combined = groupRecord(counted, 'steps');
  if (combined.status !== 'success' || entry === undefined) return { ...combined, data: null };
  try {
    const context = scopeContext(entry.inputs);
    const outputs = Object.fromEntries(Object.entries(step.group.outputs).map(([name, template]) => [name, evaluateTemplate(template, context)]));
    return { status: 'success', data: outputs };
  } catch (error) {
    return {
      status: 'failure',
      data: null,
      error: { kind: 'invalid_arguments', message: `step ${step.id}: the outputs of ${step.group.scope.task}: ${(error as Error).message}` },
    };
  }
}
