import type { ToolErrorKind } from '../errors.js';
import type { RunEvent } from '../events.js';
import type { HookSourceEvent } from './payloads.js';

/**
 * Reads the run's events (the one vocabulary) as hook events: `run_started` is a session
 * start, `run_finished` a completed or failed run; a step's finish carries its tool and error
 * kind. Remembers what later events need (each step's tool, each failed step's error kind).
 */
export class HookEventReader {
  private readonly tools = new Map<string, string>();
  private readonly errorKinds = new Map<string, ToolErrorKind>();
  read(event: RunEvent): HookSourceEvent | undefined {
    switch (event.type) {
      case 'run_started':
        for (const step of event.steps) this.tools.set(step.id, step.tool);
        return { kind: 'session_started', workflow: event.workflow, workspaceRoot: event.workspace };
      case 'steps_added':
        for (const step of event.steps) this.tools.set(step.id, step.tool);
        return undefined;
      case 'step_started':
        this.tools.set(event.stepId, event.tool);
        return { kind: 'step_started', stepId: event.stepId, tool: event.tool };
      case 'step_finished':
        if (event.error) this.errorKinds.set(event.stepId, event.error.kind);
        return {
          kind: 'step_finished',
          stepId: event.stepId,
          tool: this.tools.get(event.stepId) ?? '',
          status: event.status,
          durationMs: event.durationMs,
          errorKind: event.error?.kind,
        };
      case 'run_finished': {
        const common = { exitCode: event.exitCode, durationMs: event.durationMs, counts: event.counts };
        if (event.exitCode === 0) return { kind: 'run_completed', ...common };
        const failedStep = event.firstFailure;
        return { kind: 'run_failed', ...common, failedStep, errorKind: failedStep ? this.errorKinds.get(failedStep) : undefined };
      }
      default:
        return undefined;
    }
  }
}
