import type { RunEvent } from '../../host/events.js';
import { formatDuration, oneLine, statusSymbol, statusText } from './format.js';
import type { FileSink } from './file-sink.js';
import type { CommandSink } from './guarded-sink.js';
import { PlainFormatter } from './plain.js';
import type { Renderer } from './renderer.js';
import { printable } from '../safe-text.js';

type RunStarted = Extract<RunEvent, { type: 'run_started' }>;
type StepFinished = Extract<RunEvent, { type: 'step_finished' }>;

/** Escapes a workflow-command message (`::error::MESSAGE`). */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a workflow-command property value (`title=…,file=…`). */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * Plain output for GitHub Actions, one `::group::` per step. Groups cannot interleave, so one
 * step at a time is live: its group is open and its lines are written as they come (a long
 * `npm test` streams). Lines of the other steps running beside it are held and written in their
 * own group when their turn comes: the live step is always the earliest running one in model
 * order, which is the order results are reported in anyway. Failed steps get an `::error::`
 * annotation pointing at the step in the workflow file, and the summary table is appended to
 * `$GITHUB_STEP_SUMMARY`. Every line but rho's own commands goes through the sink's guard.
 */
export class GitHubActionsRenderer implements Renderer {
  private readonly formatter = new PlainFormatter();
  /** Lines of steps that are not live, until their group opens; at most the output bound of each. */
  private readonly held = new Map<string, string>();
  private readonly running = new Set<string>();
  private readonly order = new Map<string, number>();
  private live: string | undefined;
  private started: RunStarted | undefined;
  private summaryMarkdown: string | undefined;

  constructor(
    private readonly out: CommandSink,
    /** `$GITHUB_STEP_SUMMARY`, opened for appending before the run. */
    private readonly stepSummary: FileSink | undefined,
  ) {}

  handle(event: RunEvent): void {
    if (event.type === 'run_started') {
      this.started = event;
      for (const [index, step] of event.steps.entries()) this.order.set(step.id, index);
    }
    if (event.type === 'steps_added') for (const step of event.steps) this.order.set(step.id, this.order.size);
    const { stepId, text } = this.formatter.format(event);
    if (stepId === undefined) {
      this.write(text);
      if (event.type === 'run_finished') this.summaryMarkdown = this.markdownSummary(event);
      return;
    }
    if (event.type === 'step_started') this.running.add(stepId);
    if (event.type === 'step_finished') {
      this.finish(event, text);
      return;
    }
    if (text === '') return;
    if (this.live === undefined) this.open(stepId);
    if (this.live === stepId) this.write(text);
    else this.held.set(stepId, (this.held.get(stepId) ?? '') + text);
  }

  async close(): Promise<void> {
    if (!this.stepSummary) return;
    if (this.summaryMarkdown) this.stepSummary.write(this.summaryMarkdown);
    await this.stepSummary.end();
  }

  private finish(event: StepFinished, text: string): void {
    this.running.delete(event.stepId);
    const wasLive = this.live === event.stepId;
    // A step reported while another is live (a detached one finishing early) gets a group of its
    // own between two parts of the live one.
    const paused = wasLive ? undefined : this.live;
    if (paused !== undefined) this.closeGroup();
    if (!wasLive) this.open(event.stepId);
    this.write(text);
    this.closeGroup();
    this.annotate(event);
    if (paused !== undefined) this.open(paused, ' (continued)');
    else this.openNext();
  }

  /** Makes the earliest running step live, writing what it printed while it waited. */
  private openNext(): void {
    const next = [...this.running].sort((a, b) => (this.order.get(a) ?? 0) - (this.order.get(b) ?? 0))[0];
    if (next !== undefined) this.open(next);
  }

  private open(stepId: string, suffix = ''): void {
    this.live = stepId;
    this.out.command(`::group::${escapeData(oneLine(`${this.formatter.names.get(stepId) ?? stepId}${suffix}`))}`);
    this.write(this.held.get(stepId) ?? '');
    this.held.delete(stepId);
  }

  private closeGroup(): void {
    this.out.command('::endgroup::');
    this.live = undefined;
  }

  private annotate(event: StepFinished): void {
    if ((event.status !== 'failure' && event.status !== 'denied') || event.continueOnError) return;
    const step = this.started?.steps.find((entry) => entry.id === event.stepId);
    const properties = [`title=${escapeProperty(`rho: step ${event.stepId} ${event.status}`)}`];
    if (this.started) properties.push(`file=${escapeProperty(step?.file ?? this.started.file)}`);
    if (step) properties.push(`line=${step.line}`);
    this.out.command(`::error ${properties.join(',')}::${escapeData(event.error?.message ?? event.status)}`);
  }

  private markdownSummary(run: Extract<RunEvent, { type: 'run_finished' }>): string {
    // A cell is one line of Markdown: no control characters, no table break, no HTML tag.
    const cell = (text: string) => printable(oneLine(text)).replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const rows = [...this.formatter.finished]
      .sort((a, b) => a.index - b.index)
      .map((event) => {
        const detail = event.error?.message ?? event.reason ?? '';
        return `| ${statusSymbol[event.status]} | \`${event.stepId}\` | ${statusText(event)} | ${formatDuration(event.durationMs)} | ${cell(detail)} |`;
      });
    const title = `### rho: ${cell(this.started?.workflow ?? 'run')} — exit ${run.exitCode}`;
    return [title, '', '| | step | status | duration | detail |', '|---|---|---|---|---|', ...rows, '', ''].join('\n');
  }

  private write(text: string): void {
    if (text !== '') this.out.write(text);
  }
}
