import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { RunEvent, StepError, StepStatus } from '../../host/events.js';
import { safeText } from '../../ui/safe-text.js';

/** Most progress notifications one call sends; what follows is counted in one last notice. */
export const maxProgressNotices = 1000;
/** Longest line a notification carries; the step's log keeps the whole of it. */
export const maxNoticeChars = 1000;
/** Lines of the failing step's output the summary ends with. */
export const tailLines = 20;

/** Where a call's notices go: progress (when the client sent a progress token) and log messages. */
export interface CallNotices {
  progress?(message: string): void;
  log(level: LoggingLevel, message: string): void;
}

interface FinishedStep {
  id: string;
  status: StepStatus;
  error?: StepError;
  reason?: string;
  exitCode?: number;
  log?: string;
}

/** One line as a notice shows it: no control characters, cut to `maxNoticeChars`. */
function noticeText(text: string): string {
  const safe = safeText(text, false);
  return safe.length > maxNoticeChars ? `${safe.slice(0, maxNoticeChars)}…` : safe;
}

/**
 * What one call's run reports to the client as it goes (step starts and output lines as
 * progress and log messages, bounded), and the text summary of its end: each step's status and
 * the tail of the failing step's output. The events it reads are masked by the run.
 */
export class CallReport {
  private readonly steps: FinishedStep[] = [];
  private readonly output = new Map<string, { stdout: string[]; stderr: string[] }>();
  private sent = 0;
  private dropped = 0;

  constructor(private readonly notices: CallNotices) {}

  handle(event: RunEvent): void {
    switch (event.type) {
      case 'step_started':
        this.notify('info', `${event.stepId}: started (${event.tool})`);
        return;
      case 'step_progress': {
        const lines = event.message.split('\n');
        if (event.stream) this.keepTail(event.stepId, event.stream, lines);
        for (const line of lines) this.notify(event.stream === 'stderr' ? 'notice' : 'debug', `${event.stepId} | ${line}`);
        return;
      }
      case 'approval_requested':
        this.notify('notice', `${event.stepId}: waiting for approval of a ${event.class} request`);
        return;
      case 'step_finished':
        this.steps.push({
          id: event.stepId,
          status: event.status,
          ...(event.error && { error: event.error }),
          ...(event.reason !== undefined && { reason: event.reason }),
          ...(event.exitCode !== undefined && { exitCode: event.exitCode }),
          ...(event.log !== undefined && { log: event.log }),
        });
        this.notify(event.status === 'failure' || event.status === 'denied' ? 'error' : 'info', `${event.stepId}: ${event.status}`);
        return;
      default:
        return;
    }
  }

  /** A line of rho's own (a warning) for the client's log. */
  warn(line: string): void {
    this.notices.log('warning', noticeText(line));
  }

  /** The text result of the call: its outcome, each step's status, the failing step's output tail. */
  summary(outcome: string, firstFailure: string | undefined): string {
    const lines = [outcome];
    for (const step of this.steps) {
      const detail = step.error?.message ?? step.reason;
      const code = step.exitCode === undefined ? '' : ` (exit code ${step.exitCode})`;
      lines.push(`- ${step.id}: ${step.status}${code}${detail === undefined ? '' : `: ${detail}`}`);
    }
    const failed = firstFailure === undefined ? undefined : this.steps.find((step) => step.id === firstFailure);
    const kept = failed && this.output.get(failed.id);
    const tail = kept && (kept.stderr.length > 0 ? { stream: 'stderr', lines: kept.stderr } : { stream: 'stdout', lines: kept.stdout });
    if (failed && tail && tail.lines.length > 0) {
      lines.push('', `Last lines of ${failed.id} on ${tail.stream}:`, ...tail.lines.map((line) => `  ${line}`));
    }
    if (failed?.log !== undefined) lines.push('', `All of its output: ${failed.log}`);
    return safeText(lines.join('\n'), false);
  }

  private keepTail(stepId: string, stream: 'stdout' | 'stderr', lines: readonly string[]): void {
    let kept = this.output.get(stepId);
    if (!kept) this.output.set(stepId, (kept = { stdout: [], stderr: [] }));
    const tail = kept[stream];
    tail.push(...lines.slice(-tailLines).map(noticeText));
    tail.splice(0, Math.max(0, tail.length - tailLines));
  }

  private notify(level: LoggingLevel, text: string): void {
    if (this.sent >= maxProgressNotices) {
      this.dropped++;
      return;
    }
    this.sent++;
    const message = noticeText(text);
    this.notices.progress?.(message);
    this.notices.log(level, message);
  }

  /** Says how many notices were left out, once the run is over. */
  flush(): void {
    if (this.dropped === 0) return;
    const message = `${this.dropped} more lines were not sent (the limit is ${maxProgressNotices} a call); the step logs hold them`;
    this.notices.progress?.(message);
    this.notices.log('notice', message);
  }
}
