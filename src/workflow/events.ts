import { z } from 'zod';
import { capabilityClasses } from '../host/capability.js';
import { toolErrorKinds } from '../host/errors.js';

export const stepStatuses = ['success', 'failure', 'denied', 'skipped', 'cancelled', 'interrupted'] as const;
export type StepStatus = (typeof stepStatuses)[number];

const stepStatus = z.enum(stepStatuses);
const capabilityClass = z.enum(capabilityClasses as [string, ...string[]]);
const decider = z.enum(['policy', 'hook', 'remembered', 'flag', 'user']);

export const stepErrorSchema = z.strictObject({ kind: z.enum(toolErrorKinds), message: z.string() });
export type StepError = z.infer<typeof stepErrorSchema>;

/**
 * What the runner reports (SPEC §7). step_started and step_progress are live; step_finished is
 * reported in model order. The single source of the event types and of the events JSON Schema.
 */
export const runEventSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('run_started'),
    runId: z.string(),
    workflow: z.string(),
    file: z.string(),
    workspace: z.string().describe('Canonical primary workspace root'),
    steps: z.array(z.strictObject({ id: z.string(), name: z.string(), tool: z.string(), line: z.number().int() })).readonly(),
  }),
  z.strictObject({ type: z.literal('step_started'), stepId: z.string(), index: z.number().int(), tool: z.string() }),
  z.strictObject({ type: z.literal('step_progress'), stepId: z.string(), message: z.string(), stream: z.enum(['stdout', 'stderr']).optional() }),
  z.strictObject({ type: z.literal('approval_requested'), stepId: z.string(), request: z.number().int().describe('Audit sequence number of the decision'), class: capabilityClass }),
  z.strictObject({
    type: z.literal('approval_decided'),
    stepId: z.string(),
    request: z.number().int().describe('Audit sequence number of the decision'),
    class: capabilityClass,
    result: z.enum(['allow', 'deny']),
    decider,
  }),
  z.strictObject({ type: z.literal('question_asked'), stepId: z.string(), questionIds: z.array(z.string()).readonly() }),
  z.strictObject({ type: z.literal('question_answered'), stepId: z.string(), source: z.enum(['user', 'timeout_fallback']) }),
  z.strictObject({
    type: z.literal('step_finished'),
    stepId: z.string(),
    index: z.number().int(),
    status: stepStatus,
    durationMs: z.number().nonnegative(),
    error: stepErrorSchema.optional(),
    reason: z.string().optional().describe('Why a step did not run (skipped or cancelled), e.g. "build failed"'),
    continueOnError: z.boolean().optional(),
  }),
  z.strictObject({
    type: z.literal('run_finished'),
    exitCode: z.number().int(),
    durationMs: z.number().nonnegative(),
    counts: z.record(stepStatus, z.number().int()),
    firstFailure: z.string().optional(),
  }),
]);

export type RunEvent = z.infer<typeof runEventSchema>;
export type RunEventType = RunEvent['type'];
