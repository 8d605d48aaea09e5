import { z } from 'zod';
import { sandboxStatusSchema } from './confinement/status.js';
import { capabilityClasses } from './capability-classes.js';
import type { CapabilityClass } from './capability-classes.js';
import { toolErrorKinds } from './errors.js';
import { stepStatuses } from './step-statuses.js';

/**
 * rho's one event vocabulary (SPEC §7): what the host and the workflow runner report, and the
 * single source of the events JSON Schema, the renderers' input, the NDJSON lines and the hook
 * envelopes' run payloads. The host emits the call events (`step_started`, `step_progress`,
 * approvals, questions); a run adds `run_started`, `step_finished` (in model order) and
 * `run_finished`. A call the library runs without a step id is reported under its call id.
 */

export { stepStatuses };
export const stepStatusSchema = z.enum(stepStatuses);
export type StepStatus = z.infer<typeof stepStatusSchema>;
export const toolStatusSchema = stepStatusSchema.exclude(['skipped', 'up_to_date']);
export type ToolStatus = z.infer<typeof toolStatusSchema>;

/** Who made an authorization decision; recorded in the audit. */
export const deciderSchema = z.enum(['policy', 'hook', 'remembered', 'flag', 'user']);
export type Decider = z.infer<typeof deciderSchema>;

export const capabilityClassSchema = z.enum(capabilityClasses);
export const toolErrorKindSchema = z.enum(toolErrorKinds);

export const stepErrorSchema = z.strictObject({ kind: toolErrorKindSchema, message: z.string() });
export type StepError = z.infer<typeof stepErrorSchema>;

const auditSeq = z.number().int().describe('Audit sequence number of the decision');

const stepStarted = z.strictObject({
  type: z.literal('step_started'),
  stepId: z.string(),
  index: z.number().int(),
  tool: z.string(),
  attempt: z.number().int().min(2).optional().describe('A retry: this attempt’s number (retry:); absent for the first'),
  attempts: z.number().int().min(2).optional().describe('With attempt: the most attempts the call may take'),
});
const stepProgress = z.strictObject({
  type: z.literal('step_progress'),
  stepId: z.string(),
  message: z
    .string()
    .describe(
      'With a stream: one or more whole lines the step printed on it, in order, joined by \\n (a line longer than 16 KiB comes in pieces); without: a line of the tool’s or rho’s own',
    ),
  stream: z.enum(['stdout', 'stderr']).optional(),
});
const requestHost = z.string().optional().describe('For a network request: the host and port it names (host:port), never its path or query');
const stepOutputOmitted = z
  .strictObject({
    type: z.literal('step_output_omitted'),
    stepId: z.string(),
    lines: z.number().int().nonnegative().describe('Lines of output past the bound, not carried by step_progress events'),
    bytes: z.number().int().nonnegative().describe('Bytes of output past the bound'),
    limitBytes: z.number().describe('The bound: bytes of a step’s output the events carry (--output-limit)'),
    log: z.string().optional().describe('The file that holds the whole output; absent when logs are off'),
  })
  .describe('Sent once when a step (an attempt of it) ends, if it printed more than the events carry');
const approvalRequested = z.strictObject({ type: z.literal('approval_requested'), stepId: z.string(), request: auditSeq, class: capabilityClassSchema, host: requestHost });
const approvalDecided = z.strictObject({
  type: z.literal('approval_decided'),
  stepId: z.string(),
  request: auditSeq,
  class: capabilityClassSchema,
  host: requestHost,
  result: z.enum(['allow', 'deny']),
  decider: deciderSchema,
});
const questionAsked = z.strictObject({ type: z.literal('question_asked'), stepId: z.string(), questionIds: z.array(z.string()).readonly() });
const questionAnswered = z.strictObject({ type: z.literal('question_answered'), stepId: z.string(), source: z.enum(['user', 'timeout_fallback']) });
const outputRewritten = z
  .strictObject({ type: z.literal('step_output_rewritten'), stepId: z.string(), by: z.string().describe('The result rewriter that replaced the output') })
  .describe('The output a tool returned was replaced before it reached the caller (a library host’s result rewriter)');

/** The events a host emits for the calls it runs. */
export const hostEventSchema = z.discriminatedUnion('type', [
  stepStarted,
  stepProgress,
  stepOutputOmitted,
  approvalRequested,
  approvalDecided,
  questionAsked,
  questionAnswered,
  outputRewritten,
]);

/** A step of the run as it is announced, before it runs. */
const announcedStep = z.strictObject({
  id: z.string(),
  name: z.string(),
  tool: z.string(),
  line: z.number().int().describe('Where the step starts in its workflow file'),
  file: z.string().optional().describe('The workflow file the step is in, when it is not the run’s (a step of a task another file holds, run by uses:)'),
  kind: z
    .enum(['matrix', 'uses'])
    .optional()
    .describe(
      'A group: no call of its own, the combined status of its members, the steps before it (a matrix’s cells, or the steps of the task a uses: step runs, whose ids start with its id and a /)',
    ),
});

export const runEventSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('run_started'),
    runId: z.string(),
    workflow: z.string(),
    task: z.string().optional().describe('The task run (`rho run FILE TASK`); absent for the default task'),
    file: z.string(),
    workspace: z.string().describe('Canonical primary workspace root'),
    sandbox: sandboxStatusSchema().optional().describe('Whether process steps run confined, and if not, why and how to fix it'),
    steps: z.array(announcedStep).readonly(),
  }),
  ...hostEventSchema.options,
  z.strictObject({
    type: z.literal('steps_added'),
    group: z.string().describe('The matrix step whose cells these are: its matrix was known only when it was ready (an expression)'),
    steps: z.array(announcedStep).readonly().describe('The new steps, as run_started lists steps; their index continues where the list so far ends'),
  }),
  z.strictObject({
    type: z.literal('step_finished'),
    stepId: z.string(),
    index: z.number().int(),
    status: stepStatusSchema,
    durationMs: z.number().nonnegative(),
    error: stepErrorSchema.optional(),
    reason: z
      .string()
      .optional()
      .describe('Why a step did not run (skipped, up_to_date or cancelled), e.g. "build failed"; for a step with sources that ran, why it was not up to date'),
    continueOnError: z.boolean().optional(),
    images: z
      .array(z.strictObject({ mediaType: z.string(), bytes: z.number().int().nonnegative() }))
      .readonly()
      .optional()
      .describe('Images the step returned: media type and size only, never their bytes'),
    audio: z
      .array(z.strictObject({ mediaType: z.string(), bytes: z.number().int().nonnegative() }))
      .readonly()
      .optional()
      .describe('Audio clips the step returned: media type and size only, never their bytes'),
    attempts: z.number().int().min(2).optional().describe('How many attempts the step took, when it was retried'),
    log: z.string().optional().describe('The file that holds everything the step printed (its last attempt), when it printed anything and logs are on'),
    exitCode: z.number().int().optional().describe('A step that failed because its program exited with a code it does not accept (exec, shell): that code'),
    source: z
      .enum(['local', 'remote'])
      .optional()
      .describe('An up_to_date step: local when its outputs are as its last run here left them, remote when they were restored from the shared cache'),
  }),
  z.strictObject({
    type: z.literal('run_finished'),
    exitCode: z.number().int(),
    durationMs: z.number().nonnegative(),
    counts: z.record(stepStatusSchema, z.number().int()),
    firstFailure: z.string().optional(),
  }),
]);

export type RunEvent = z.infer<typeof runEventSchema>;
export type HostEvent = z.infer<typeof hostEventSchema>;

/** One audit entry: deliberately free of paths, commands, arguments, env values, URLs and bodies. */
export interface AuditRecord {
  seq: number;
  class: CapabilityClass;
  result: 'allow' | 'deny';
  decider: Decider;
}
