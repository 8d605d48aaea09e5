import { appendFile } from 'node:fs/promises';
import type { RunEvent } from '../../host/events.js';
import { formatDuration, statusSymbol } from './format.js';
import { PlainFormatter } from './plain.js';
import type { Renderer, TextSink } from './renderer.js';

/** Escapes a workflow-command message (`::error::MESSAGE`). */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a workflow-command property value (`title=…,file=…`). */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * Plain output for GitHub Actions: each step's lines are collected and printed as one
 * `::group::` when the step finishes (steps finish in model order, so the log reads in order
 * even when steps ran in parallel), failed steps get an `::error::` annotation pointing at the
 * step in the workflow file, and the summary table is appended to `$GITHUB_STEP_SUMMARY`.
 */
export class GitHubActionsRenderer implements Renderer {
  private readonly formatter = new PlainFormatter();
  private readonly buffered = new Map<string, string[]>();
  private started: Extract<RunEvent, { type: 'run_started' }> | undefined;
  private summaryMarkdown: string | undefined;

  constructor(
    private readonly out: TextSink,
    private readonly stepSummaryFile: string | undefined,
  ) {}

  handle(event: RunEvent): void {
    if (event.type === 'run_started') this.started = event;
    const { stepId, lines } = this.formatter.format(event);
    if (stepId === undefined) {
      for (const line of lines) this.write(line);
      if (event.type === 'run_finished') this.summaryMarkdown = this.markdownSummary(event);
      return;
    }
    const buffer = this.buffered.get(stepId) ?? [];
    buffer.push(...lines);
    this.buffered.set(stepId, buffer);
    if (event.type !== 'step_finished') return;
    this.write(`::group::${escapeData(`${this.formatter.names.get(stepId) ?? stepId} — ${event.status}`)}`);
    for (const line of buffer) this.write(line);
    this.write('::endgroup::');
    this.buffered.delete(stepId);
    if ((event.status === 'failure' || event.status === 'denied') && !event.continueOnError) {
      const step = this.started?.steps.find((entry) => entry.id === stepId);
      const properties = [`title=${escapeProperty(`rho: step ${stepId} ${event.status}`)}`];
      if (this.started) properties.push(`file=${escapeProperty(this.started.file)}`);
      if (step) properties.push(`line=${step.line}`);
      this.write(`::error ${properties.join(',')}::${escapeData(event.error?.message ?? event.status)}`);
    }
  }

  async close(): Promise<void> {
    if (this.stepSummaryFile && this.summaryMarkdown) await appendFile(this.stepSummaryFile, this.summaryMarkdown);
  }

  private markdownSummary(run: Extract<RunEvent, { type: 'run_finished' }>): string {
    const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
    const rows = [...this.formatter.finished]
      .sort((a, b) => a.index - b.index)
      .map((event) => {
        const detail = event.error?.message ?? event.reason ?? '';
        return `| ${statusSymbol[event.status]} | \`${event.stepId}\` | ${event.status} | ${formatDuration(event.durationMs)} | ${cell(detail)} |`;
      });
    const title = `### rho: ${this.started?.workflow ?? 'run'} — exit ${run.exitCode}`;
    return [title, '', '| | step | status | duration | detail |', '|---|---|---|---|---|', ...rows, '', ''].join('\n');
  }

  private write(line: string): void {
    this.out.write(`${line}\n`);
  }
}
