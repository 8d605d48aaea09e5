import { describeUnconfined } from '../../host/confinement/modes.js';
import type { SandboxStatus } from '../../host/confinement/status.js';
import type { RunEvent, StepStatus } from '../../host/events.js';

type StepFinished = Extract<RunEvent, { type: 'step_finished' }>;
type RunFinished = Extract<RunEvent, { type: 'run_finished' }>;
type OutputOmitted = Extract<RunEvent, { type: 'step_output_omitted' }>;

export const statusSymbol: Readonly<Record<StepStatus, string>> = {
  success: '✔',
  failure: '✖',
  denied: '⛔',
  skipped: '↷',
  up_to_date: '≡',
  cancelled: '◌',
  interrupted: '⏹',
};

/** Symbols a terminal draws two columns wide (emoji presentation); the others take one. */
const wideSymbols: ReadonlySet<string> = new Set([statusSymbol.denied]);

/** A status symbol and the space after it, three columns in all, so a table's columns line up whichever symbol a row has. */
export function symbolCell(status: StepStatus): string {
  const symbol = statusSymbol[status];
  return wideSymbols.has(symbol) ? `${symbol} ` : `${symbol}  `;
}

/** A text on one line: line breaks become spaces (for table cells and titles). */
export function oneLine(text: string): string {
  return text.replace(/\s*(?:\r\n|\r|\n)\s*/g, ' ');
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  return `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}

/** A size as a person reads it: `512 bytes`, `1.5 KiB`, `10 MiB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

export function formatCount(count: number, what: string): string {
  return `${count.toLocaleString('en-US')} ${what}${count === 1 ? '' : 's'}`;
}

/** The one line that says how much of a step's output was not shown, and where all of it is. */
export function describeOmission(event: OutputOmitted): string {
  const where = event.log === undefined ? 'logs are off (--no-logs), so it was not kept' : `all of it is in ${event.log}`;
  return `… ${formatCount(event.lines, 'more line')} (${formatSize(event.bytes)}) not shown: past the ${formatSize(event.limitBytes)} of output a step shows (--output-limit); ${where}`;
}

/** A step's status as a person reads it: an up-to-date step says where its outputs are (`up_to_date [remote]`). */
export function statusText(event: Pick<StepFinished, 'status' | 'source'>): string {
  return event.source === undefined ? event.status : `${event.status} [${event.source}]`;
}

/** One line describing how a step ended. */
export function describeFinish(event: StepFinished): string {
  const tries = event.attempts === undefined ? '' : `, ${event.attempts} attempts`;
  const base = `${statusSymbol[event.status]} ${statusText(event)} (${formatDuration(event.durationMs)}${tries})`;
  const note = event.continueOnError ? ' [continue_on_error]' : '';
  if (event.error) return `${base}${note}: ${event.error.message}`;
  if (event.reason) return `${base}: ${event.reason}`;
  return base;
}

/** How an approval line names the host of a network request (` to host:port`); nothing for other classes. */
export function hostSuffix(event: { host?: string | undefined }): string {
  return event.host === undefined ? '' : ` to ${event.host}`;
}

/** Whether a step ended badly enough that where its output is deserves a line of its own. */
function failed(event: StepFinished): boolean {
  return event.status === 'failure' || event.status === 'denied' || event.status === 'interrupted' || (event.status === 'cancelled' && event.error !== undefined);
}

/**
 * The lines a step's end adds to a log: how it ended and, for a step that failed, where everything
 * it printed is kept. Its output itself was shown as it came, so none of it is repeated here.
 */
export function finishLines(event: StepFinished): string[] {
  const lines = [describeFinish(event)];
  if (failed(event) && event.log !== undefined) lines.push(`its whole output: ${event.log}`);
  return lines;
}

/** The line that says a run's processes are not confined, and why; undefined when they are. */
export function sandboxLine(status: SandboxStatus | undefined): string | undefined {
  if (!status || status.confined) return undefined;
  return `Sandbox ${status.mode}: ${describeUnconfined(status)}`;
}

/**
 * The end-of-run summary: the first failure named first, then every step in model order with
 * its status and duration.
 */
export function formatSummary(finished: readonly StepFinished[], run: RunFinished, names: ReadonlyMap<string, string>, sandbox?: SandboxStatus): string[] {
  const lines: string[] = [];
  const first = finished.find((event) => event.stepId === run.firstFailure);
  if (first) {
    const [headline = '', ...rest] = (first.error?.message ?? first.status).split(/\r\n|\r|\n/);
    lines.push(`First failure: ${first.stepId} — ${headline}`, ...rest.map((line) => `  [${first.stepId}] ${line}`));
    if (first.log !== undefined) lines.push(`  [${first.stepId}] its whole output: ${first.log}`);
  }
  const width = Math.max(...finished.map((event) => event.stepId.length), 4);
  lines.push('Summary:');
  for (const event of [...finished].sort((a, b) => a.index - b.index)) {
    const name = names.get(event.stepId);
    const label = name && name !== event.stepId ? ` ${oneLine(name)}` : '';
    const because = [
      event.exitCode === undefined ? '' : ` (exit code ${event.exitCode})`,
      event.attempts === undefined ? '' : ` (${event.attempts} attempts)`,
      // An up-to-date step says where its outputs are before why: `(remote: restored from …)`.
      event.reason ? ` (${event.source === undefined ? '' : `${event.source}: `}${oneLine(event.reason)})` : '',
    ].join('');
    lines.push(`  ${symbolCell(event.status)}${event.stepId.padEnd(width)}  ${event.status.padEnd(11)} ${formatDuration(event.durationMs).padStart(7)}${label}${because}`);
  }
  const counts = Object.entries(run.counts)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
  const unconfined = sandboxLine(sandbox);
  if (unconfined) lines.push(unconfined);
  lines.push(`Result: exit ${run.exitCode} (${counts}) in ${formatDuration(run.durationMs)}`);
  return lines;
}
