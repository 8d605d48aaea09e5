import { z } from 'zod';
import { toolErrorKinds, type ToolErrorKind } from '../errors.js';
import type { GateInput } from '../gates.js';
import type { Delegation } from './delegation.js';
import type { ToolResult } from '../tool.js';
import { capabilitySummarySchema, summarizeCapability, type CapabilitySummary } from './capability-summary.js';
import { stepStatuses, stepStatusSchema, toolStatusSchema, type StepStatus } from '../events.js';
import type { ObservedKind } from './kinds.js';

export type { StepStatus };
export type StepCounts = Partial<Record<StepStatus, number>>;

const errorKind = z.enum(toolErrorKinds).nullable();
const stepCountsSchema = z.strictObject(Object.fromEntries(stepStatuses.map((status) => [status, z.number().int()])) as Record<StepStatus, z.ZodNumber>);

/** The payload of each event kind, as it goes on the wire. Nothing here carries tool output. */
export const hookPayloadSchemas = {
  session_started: z.strictObject({
    workflow: z.string().nullable().describe('The workflow name, null for a single invocation'),
    workspace_root: z.string(),
  }),
  step_started: z.strictObject({ step_id: z.string(), tool: z.string() }),
  before_tool_use: z.strictObject({
    tool: z.string(),
    call_id: z.string(),
    step_id: z.string().nullable(),
    capability: capabilitySummarySchema,
    policy_decision: z.enum(['allow', 'ask']).describe('What the policy decided; a gate can keep it or deny'),
  }),
  after_tool_use: z.strictObject({
    tool: z.string(),
    call_id: z.string(),
    step_id: z.string().nullable(),
    status: toolStatusSchema,
    duration_ms: z.number(),
    error_kind: errorKind,
    capability: capabilitySummarySchema.nullable().describe('The first request the call passed to authorization (policy denials included); null when it never authorized'),
  }),
  step_finished: z.strictObject({
    step_id: z.string(),
    tool: z.string(),
    status: stepStatusSchema,
    duration_ms: z.number(),
    error_kind: errorKind,
  }),
  run_completed: z.strictObject({ exit_code: z.number().int(), duration_ms: z.number(), steps: stepCountsSchema }),
  run_failed: z.strictObject({
    exit_code: z.number().int(),
    duration_ms: z.number(),
    steps: stepCountsSchema,
    failed_step: z.string().nullable().describe('The first step that failed, null when the run failed outside a step'),
    error_kind: errorKind,
  }),
} as const;

export type HookPayloads = { [K in keyof typeof hookPayloadSchemas]: z.infer<(typeof hookPayloadSchemas)[K]> };

/** What the host knows when an observed event happens; `hookPayloadFor` turns it into a safe payload. */
export type HookSourceEvent =
  | { kind: 'session_started'; workflow: string | undefined; workspaceRoot: string }
  | { kind: 'step_started'; stepId: string; tool: string }
  | { kind: 'after_tool_use'; stepId: string | undefined; result: ToolResult; capability: CapabilitySummary | null; delegation?: Delegation | undefined }
  | { kind: 'step_finished'; stepId: string; tool: string; status: StepStatus; durationMs: number; errorKind: ToolErrorKind | undefined }
  | { kind: 'run_completed'; exitCode: number; durationMs: number; counts: StepCounts }
  | {
      kind: 'run_failed';
      exitCode: number;
      durationMs: number;
      counts: StepCounts;
      failedStep: string | undefined;
      errorKind: ToolErrorKind | undefined;
    };

export type ObservedPayload = { [K in ObservedKind]: { kind: K; payload: HookPayloads[K] } }[ObservedKind];

/** Maps a host event to its wire payload. A tool result contributes its status and error kind only: never output or images. */
export function hookPayloadFor(event: HookSourceEvent): ObservedPayload {
  switch (event.kind) {
    case 'session_started':
      return { kind: event.kind, payload: { workflow: event.workflow ?? null, workspace_root: event.workspaceRoot } };
    case 'step_started':
      return { kind: event.kind, payload: { step_id: event.stepId, tool: event.tool } };
    case 'after_tool_use': {
      const { result } = event;
      return {
        kind: event.kind,
        payload: {
          tool: result.tool,
          call_id: result.callId,
          step_id: event.stepId ?? null,
          status: result.status,
          duration_ms: Math.round(result.durationMs),
          error_kind: result.error?.kind ?? null,
          capability: event.capability,
        },
      };
    }
    case 'step_finished':
      return {
        kind: event.kind,
        payload: {
          step_id: event.stepId,
          tool: event.tool,
          status: event.status,
          duration_ms: Math.round(event.durationMs),
          error_kind: event.errorKind ?? null,
        },
      };
    case 'run_completed':
      return {
        kind: event.kind,
        payload: { exit_code: event.exitCode, duration_ms: Math.round(event.durationMs), steps: fullCounts(event.counts) },
      };
    case 'run_failed':
      return {
        kind: event.kind,
        payload: {
          exit_code: event.exitCode,
          duration_ms: Math.round(event.durationMs),
          steps: fullCounts(event.counts),
          failed_step: event.failedStep ?? null,
          error_kind: event.errorKind ?? null,
        },
      };
  }
}

/** The payload a gate receives: the request exactly as the policy saw it, and the policy's answer. */
export function beforeToolUsePayload(input: GateInput): HookPayloads['before_tool_use'] {
  return {
    tool: input.tool,
    call_id: input.callId,
    step_id: input.stepId ?? null,
    capability: summarizeCapability(input.request),
    policy_decision: input.policyDecision,
  };
}

function fullCounts(counts: StepCounts): Record<StepStatus, number> {
  return Object.fromEntries(stepStatuses.map((status) => [status, counts[status] ?? 0])) as Record<StepStatus, number>;
}
