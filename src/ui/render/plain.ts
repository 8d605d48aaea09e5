import type { RunEvent } from '../../host/events.js';
import type { SandboxStatus } from '../../host/confinement/status.js';
import { describeOmission, finishLines, formatSummary, hostSuffix, sandboxLine } from './format.js';
import type { Renderer, TextSink } from './renderer.js';

type StepFinished = Extract<RunEvent, { type: 'step_finished' }>;

/** The lines one event adds to a log, each ending in a line feed (none: ''), and the step they belong to (none for run-level lines). */
export interface FormattedLines {
  stepId: string | undefined;
  text: string;
}

/**
 * Every line of some texts with a prefix, so a multi-line message still says whose it is. Lines
 * end where every display ends them: `\n`, `\r\n` and a lone `\r` (text after it would otherwise
 * overwrite the line on a terminal, and the GitHub Actions runner starts a new line there).
 */
export function prefixLines(prefix: string, ...texts: readonly string[]): string {
  let block = '';
  for (const text of texts) {
    const lines = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
    block += `${prefix}${lines.replaceAll('\n', `\n${prefix}`)}\n`;
  }
  return block;
}

/** Whole lines, each ending in a line feed. */
function asLines(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
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
    const step = (stepId: string, ...lines: string[]): FormattedLines => ({ stepId, text: prefixLines(`[${stepId}] `, ...lines) });
    switch (event.type) {
      case 'run_started': {
        for (const entry of event.steps) this.names.set(entry.id, entry.name);
        this.sandbox = event.sandbox;
        const unconfined = sandboxLine(event.sandbox);
        const title = `rho: ${event.workflow}${event.task === undefined ? '' : ` › ${event.task}`} (${event.steps.length} step${event.steps.length === 1 ? '' : 's'})`;
        return { stepId: undefined, text: asLines([title, ...(unconfined ? [unconfined] : [])]) };
      }
      case 'steps_added':
        for (const entry of event.steps) this.names.set(entry.id, entry.name);
        return { stepId: undefined, text: asLines([`rho: ${event.group} expands into ${event.steps.length} step${event.steps.length === 1 ? '' : 's'}`]) };
      case 'step_started':
        return step(
          event.stepId,
          `▶ ${this.names.get(event.stepId) ?? event.stepId} (${event.tool})${event.attempt === undefined ? '' : `, attempt ${event.attempt} of ${event.attempts}`}`,
        );
      case 'step_progress':
        return step(event.stepId, event.message);
      case 'step_output_omitted':
        return step(event.stepId, describeOmission(event));
      case 'approval_requested':
        return step(event.stepId, `waiting for approval of a ${event.class} request${hostSuffix(event)} (#${event.request})`);
      case 'approval_decided':
        if (event.decider === 'policy') return { stepId: event.stepId, text: '' };
        return step(event.stepId, `${event.class} request #${event.request}${hostSuffix(event)} ${event.result === 'allow' ? 'allowed' : 'denied'} by ${event.decider}`);
      case 'question_asked':
        return step(event.stepId, `waiting for an answer to: ${event.questionIds.join(', ')}`);
      case 'question_answered':
        return step(event.stepId, `answered (${event.source})`);
      case 'step_output_rewritten':
        return step(event.stepId, `output rewritten by ${event.by}`);
      case 'step_finished':
        this.finished.push(event);
        return step(event.stepId, ...finishLines(event));
      case 'run_finished':
        return { stepId: undefined, text: asLines(formatSummary(this.finished, event, this.names, this.sandbox)) };
    }
  }
}

/**
 * Line-oriented output for logs and CI: the lines of an event are written whole in one write, so
 * parallel steps never interleave mid-line.
 */
export class PlainRenderer implements Renderer {
  private readonly formatter = new PlainFormatter();

  constructor(private readonly out: TextSink) {}

  handle(event: RunEvent): void {
    const { text } = this.formatter.format(event);
    if (text !== '') this.out.write(text);
  }

  async close(): Promise<void> {}
}
