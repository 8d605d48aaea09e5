import type { RunEvent } from '../../host/events.js';
import type { SandboxStatus } from '../../host/confinement/status.js';
import { describeFinish, formatSummary, sandboxLine } from './format.js';
import { runnerLineBreak } from './guarded-sink.js';
import type { Renderer, TextSink } from './renderer.js';

type StepFinished = Extract<RunEvent, { type: 'step_finished' }>;

/** The lines one event adds to a log, and the step they belong to (none for run-level lines). */
export interface FormattedLines {
  stepId: string | undefined;
  lines: string[];
}

/** Every line of a text with a prefix, so a multi-line message still says whose it is. */
export function prefixLines(prefix: string, ...texts: readonly string[]): string[] {
  return texts.flatMap((text) => text.split(runnerLineBreak).map((line) => `${prefix}${line}`));
}

/**
 * Formats run events as plain log lines: every step line is prefixed with `[step-id]`, and the
 * run ends with the summary.
 */
export class PlainFormatter {
  readonly finished: StepFinished[] = [];
  readonly names = new Map<string, string>();
  private sandbox: SandboxStatus | undefined;

  format(event: RunEvent): FormattedLines {
    const step = (stepId: string, ...lines: string[]): FormattedLines => ({ stepId, lines: prefixLines(`[${stepId}] `, ...lines) });
    switch (event.type) {
      case 'run_started':
        for (const entry of event.steps) this.names.set(entry.id, entry.name);
        this.sandbox = event.sandbox;
        const unconfined = sandboxLine(event.sandbox);
        const title = `rho: ${event.workflow}${event.task === undefined ? '' : ` › ${event.task}`} (${event.steps.length} step${event.steps.length === 1 ? '' : 's'})`;
        return { stepId: undefined, lines: [title, ...(unconfined ? [unconfined] : [])] };
      case 'steps_added':
        for (const entry of event.steps) this.names.set(entry.id, entry.name);
        return { stepId: undefined, lines: [`rho: ${event.group} expands into ${event.steps.length} step${event.steps.length === 1 ? '' : 's'}`] };
      case 'step_started':
        return step(event.stepId, `▶ ${this.names.get(event.stepId) ?? event.stepId} (${event.tool})${event.attempt === undefined ? '' : `, attempt ${event.attempt} of ${event.attempts}`}`);
      case 'step_progress':
        return step(event.stepId, event.message);
      case 'approval_requested':
        return step(event.stepId, `waiting for approval of a ${event.class} request (#${event.request})`);
      case 'approval_decided':
        if (event.decider === 'policy') return { stepId: event.stepId, lines: [] };
        return step(event.stepId, `${event.class} request #${event.request} ${event.result === 'allow' ? 'allowed' : 'denied'} by ${event.decider}`);
      case 'question_asked':
        return step(event.stepId, `waiting for an answer to: ${event.questionIds.join(', ')}`);
      case 'question_answered':
        return step(event.stepId, `answered (${event.source})`);
      case 'step_finished':
        this.finished.push(event);
        return step(event.stepId, describeFinish(event));
      case 'run_finished':
        return { stepId: undefined, lines: formatSummary(this.finished, event, this.names, this.sandbox) };
    }
  }
}

/**
 * Line-oriented output for logs and CI: every line is written whole, so parallel steps never
 * interleave mid-line.
 */
export class PlainRenderer implements Renderer {
  private readonly formatter = new PlainFormatter();

  constructor(private readonly out: TextSink) {}

  handle(event: RunEvent): void {
    for (const line of this.formatter.format(event).lines) this.out.write(`${line}\n`);
  }

  async close(): Promise<void> {}
}
