import type { Decider } from '../host/approval.js';
import type { CapabilityClass } from '../host/capability.js';
import type { ToolErrorKind } from '../host/errors.js';
import type { HostInputSource } from '../host/host-input.js';

export type StepStatus = 'success' | 'failure' | 'denied' | 'skipped' | 'cancelled' | 'interrupted';
export const stepStatuses: readonly StepStatus[] = ['success', 'failure', 'denied', 'skipped', 'cancelled', 'interrupted'];

export interface StepError {
  kind: ToolErrorKind;
  message: string;
}

/** What the runner reports, in model order where order matters. Renderers and reports listen to these. */
export type RunEvent =
  | { type: 'run_started'; runId: string; workflow: string; file: string; steps: readonly { id: string; name: string; tool: string }[] }
  | { type: 'step_started'; stepId: string; index: number; tool: string }
  | { type: 'step_progress'; stepId: string; message: string; stream?: 'stdout' | 'stderr' }
  | { type: 'approval_requested'; stepId: string; seq: number; class: CapabilityClass }
  | { type: 'approval_decided'; stepId: string; seq: number; class: CapabilityClass; result: 'allow' | 'deny'; decider: Decider }
  | { type: 'question_asked'; stepId: string; questionIds: readonly string[] }
  | { type: 'question_answered'; stepId: string; source: HostInputSource }
  | {
      type: 'step_finished';
      stepId: string;
      index: number;
      status: StepStatus;
      durationMs: number;
      error?: StepError;
      /** Why a step did not run (skipped or cancelled), e.g. "build failed". */
      reason?: string;
      continueOnError?: boolean;
      output?: string;
    }
  | { type: 'run_finished'; exitCode: number; durationMs: number; counts: Readonly<Record<StepStatus, number>>; firstFailure?: string };

export type RunEventType = RunEvent['type'];
