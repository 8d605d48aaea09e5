import type { RunEvent } from '../../workflow/events.js';
import { describeFinish, formatSummary } from './format.js';
import type { Renderer, TextSink } from './renderer.js';

type StepFinished = Extract<RunEvent, { type: 'step_finished' }>;

/**
 * Line-oriented output for logs and CI: every line is written whole, prefixed with `[step-id]`,
 * so parallel steps never interleave mid-line.
 */
export class PlainRenderer implements Renderer {
  private readonly finished: StepFinished[] = [];
  private readonly names = new Map<string, string>();

  constructor(private readonly out: TextSink) {}

  handle(event: RunEvent): void {
    switch (event.type) {
      case 'run_started':
        for (const step of event.steps) this.names.set(step.id, step.name);
        this.line(`rho: ${event.workflow} (${event.steps.length} step${event.steps.length === 1 ? '' : 's'})`);
        return;
      case 'step_started':
        this.line(`[${event.stepId}] ▶ ${this.names.get(event.stepId) ?? event.stepId} (${event.tool})`);
        return;
      case 'step_progress':
        for (const line of event.message.split('\n')) this.line(`[${event.stepId}] ${line}`);
        return;
      case 'approval_requested':
        this.line(`[${event.stepId}] waiting for approval of a ${event.class} request (#${event.seq})`);
        return;
      case 'approval_decided':
        if (event.decider !== 'policy') {
          this.line(`[${event.stepId}] ${event.class} request #${event.seq} ${event.result === 'allow' ? 'allowed' : 'denied'} by ${event.decider}`);
        }
        return;
      case 'question_asked':
        this.line(`[${event.stepId}] waiting for an answer to: ${event.questionIds.join(', ')}`);
        return;
      case 'question_answered':
        this.line(`[${event.stepId}] answered (${event.source})`);
        return;
      case 'step_finished':
        this.finished.push(event);
        this.line(`[${event.stepId}] ${describeFinish(event)}`);
        return;
      case 'run_finished':
        for (const line of formatSummary(this.finished, event, this.names)) this.line(line);
        return;
    }
  }

  async close(): Promise<void> {}

  private line(text: string): void {
    this.out.write(`${text}\n`);
  }
}
