import type { RunEvent } from '../../host/events.js';
import type { FileSink } from '../render/file-sink.js';
import type { Renderer } from '../render/renderer.js';

type RunStarted = Extract<RunEvent, { type: 'run_started' }>;
type StepFinished = Extract<RunEvent, { type: 'step_finished' }>;
type RunFinished = Extract<RunEvent, { type: 'run_finished' }>;

function escapeXml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** An attribute value keeps one line (consumers flatten attributes); the whole text goes in the element's body. */
function headline(text: string): string {
  return text.split(/\r\n|\r|\n/)[0] ?? '';
}

/** What a run that ended early was cut off by, from its exit code. */
function cutOffBy(exitCode: number | undefined): string | undefined {
  if (exitCode === 124) return 'the run timed out (--timeout)';
  if (exitCode === 130) return 'the run was interrupted';
  return undefined;
}

/** How one step reads in a JUnit report. */
type Verdict =
  | { kind: 'pass'; note?: string }
  | { kind: 'failure' | 'error' | 'skipped'; type: string; message: string };

/**
 * A step that failed is a `<failure>`; one that was running when the run was stopped (timeout,
 * interrupt, or cancelled while it executed) is an `<error>`: it neither passed nor failed on
 * its own. A step that never executed is `<skipped>` with the reason. A failure tolerated by
 * `continue_on_error` is `<skipped type="continue_on_error">`, so it reads as neither a pass
 * nor a failure of the run. A step that was up to date passed: its testcase carries the note
 * in `<system-out>`.
 */
function verdictOf(event: StepFinished | undefined, executed: boolean, run: RunFinished | undefined): Verdict {
  const stoppedBy = cutOffBy(run?.exitCode);
  if (!event) return { kind: 'skipped', type: 'not_reported', message: stoppedBy ?? 'the step was not reported' };
  const message = event.error?.message ?? event.reason ?? event.status;
  switch (event.status) {
    case 'success':
      return { kind: 'pass' };
    case 'up_to_date':
      return { kind: 'pass', note: `up to date: ${message}` };
    case 'failure':
    case 'denied':
      if (event.continueOnError) return { kind: 'skipped', type: 'continue_on_error', message: `${event.status} tolerated by continue_on_error: ${message}` };
      return { kind: 'failure', type: event.error?.kind ?? event.status, message };
    case 'cancelled':
    case 'interrupted':
      if (executed) return { kind: 'error', type: event.error?.kind ?? event.status, message: stoppedBy ? `${stoppedBy} while it ran: ${message}` : message };
      return { kind: 'skipped', type: event.status, message };
    case 'skipped':
      return { kind: 'skipped', type: 'skipped', message };
  }
}

function verdictElement(verdict: Verdict): string | undefined {
  if (verdict.kind === 'pass') return verdict.note === undefined ? undefined : `      <system-out>${escapeXml(verdict.note)}</system-out>`;
  return `      <${verdict.kind} type="${escapeXml(verdict.type)}" message="${escapeXml(headline(verdict.message))}">${escapeXml(verdict.message)}</${verdict.kind}>`;
}

/**
 * The JUnit XML of a finished run: one testcase per step, in model order, in the common JUnit
 * format (Jenkins xunit's junit-10 schema: `<testsuites>` counts tests, failures and errors;
 * only `<testsuite>` counts skipped). The run's exit code is a property of the suite.
 */
export function formatJunit(started: RunStarted, finished: readonly StepFinished[], executed: ReadonlySet<string>, end: RunFinished | undefined): string {
  // A group (a matrix, a uses: step) repeats its members' outcome; the members are the testcases,
  // and a group is one only when it failed on its own (a uses: step whose inputs were refused).
  const byId = new Map(finished.map((event) => [event.stepId, event]));
  const run = { ...started, steps: started.steps.filter((step) => step.kind === undefined || byId.get(step.id)?.error !== undefined) };
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const verdicts = run.steps.map((step) => verdictOf(byId.get(step.id), executed.has(step.id), end));
  const cases = run.steps.map((step, index) => {
    const attributes = `name="${escapeXml(step.name)}" classname="${escapeXml(`${run.workflow}.${step.id}`)}" time="${seconds(byId.get(step.id)?.durationMs ?? 0)}"`;
    const body = verdictElement(verdicts[index]!);
    return body ? `    <testcase ${attributes}>\n${body}\n    </testcase>` : `    <testcase ${attributes}/>`;
  });
  const count = (kind: Verdict['kind']) => verdicts.filter((verdict) => verdict.kind === kind).length;
  const totals = `tests="${run.steps.length}" failures="${count('failure')}" errors="${count('error')}"`;
  const time = `time="${seconds(end?.durationMs ?? 0)}"`;
  const properties = [
    `      <property name="exit_code" value="${end?.exitCode ?? ''}"/>`,
    ...(cutOffBy(end?.exitCode) ? [`      <property name="stopped" value="${escapeXml(cutOffBy(end?.exitCode)!)}"/>`] : []),
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="rho" ${totals} ${time}>`,
    `  <testsuite name="${escapeXml(run.workflow)}" ${totals} skipped="${count('skipped')}" ${time} file="${escapeXml(run.file)}">`,
    '    <properties>',
    ...properties,
    '    </properties>',
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

const emptyReport = '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="rho" tests="0" failures="0" errors="0"/>\n';

/** Collects a run's events and writes the JUnit report, to a file opened before the run, when the run is over. */
export class JunitReporter implements Renderer {
  private run: RunStarted | undefined;
  private readonly finished: StepFinished[] = [];
  private readonly executed = new Set<string>();
  private end: RunFinished | undefined;

  constructor(private readonly file: FileSink) {}

  handle(event: RunEvent): void {
    if (event.type === 'run_started') this.run = event;
    else if (event.type === 'steps_added' && this.run) this.run = { ...this.run, steps: [...this.run.steps, ...event.steps] };
    else if (event.type === 'step_started') this.executed.add(event.stepId);
    else if (event.type === 'step_finished') this.finished.push(event);
    else if (event.type === 'run_finished') this.end = event;
  }

  async close(): Promise<void> {
    // A workflow that never started (invalid, or refused at start) still leaves a well-formed report.
    this.file.write(this.run ? formatJunit(this.run, this.finished, this.executed, this.end) : emptyReport);
    await this.file.end();
  }
}
