import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunEvent } from '../../host/events.js';
import type { FileSink } from '../render/file-sink.js';
import { describeOmission } from '../render/format.js';
import type { Renderer } from '../render/renderer.js';
import { safeText } from '../safe-text.js';

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
type Verdict = { kind: 'pass'; note?: string } | { kind: 'failure' | 'error' | 'skipped'; type: string; message: string };

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
      return { kind: 'pass', note: `up to date${event.source === undefined ? '' : ` (${event.source})`}: ${message}` };
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

/** What one step printed, as its events carried it: each stream's lines and the line that says what was left out. */
class PrintedText {
  stdout = '';
  stderr = '';
  omission: string | undefined;

  /** `<system-out>` and `<system-err>` as JUnit consumers show them (colour codes removed, control characters written out). */
  elements(): string {
    const out = this.omission === undefined ? this.stdout : `${this.stdout}${this.omission}\n`;
    const element = (name: string, text: string) => (text === '' ? '' : `      <${name}>${escapeXml(safeText(text, false))}</${name}>\n`);
    return `${element('system-out', out)}${element('system-err', this.stderr)}`;
  }
}

/**
 * Text kept on disk until the report is written (the output of the steps that finished), so a
 * run that prints a lot costs no memory for it: an unnamed temporary file, gone when it is closed
 * or the process ends. Where no temporary file can be made, the text stays in memory.
 */
class Spool {
  private fd: number | undefined;
  private size = 0;
  private readonly places = new Map<string, { offset: number; length: number } | string>();

  constructor() {
    const file = path.join(tmpdir(), `rho-junit-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      this.fd = openSync(file, 'wx+', 0o600);
      unlinkSync(file);
    } catch {
      this.fd = undefined;
    }
  }

  put(key: string, text: string): void {
    if (text === '') return;
    if (this.fd === undefined) return void this.places.set(key, text);
    const bytes = Buffer.from(text, 'utf8');
    try {
      for (let written = 0; written < bytes.length; ) written += writeSync(this.fd, bytes, written, bytes.length - written, this.size + written);
      this.places.set(key, { offset: this.size, length: bytes.length });
      this.size += bytes.length;
    } catch {
      this.places.set(key, text);
    }
  }

  take(key: string): string {
    const place = this.places.get(key);
    this.places.delete(key);
    if (place === undefined || typeof place === 'string') return place ?? '';
    const bytes = Buffer.alloc(place.length);
    for (let read = 0; read < place.length; ) read += readSync(this.fd!, bytes, read, place.length - read, place.offset + read);
    return bytes.toString('utf8');
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * The JUnit XML of a finished run, written in parts: one testcase per step, in model order, in the
 * common JUnit format (Jenkins xunit's junit-10 schema: `<testsuites>` counts tests, failures and
 * errors; only `<testsuite>` counts skipped). The run's exit code is a property of the suite.
 * `printed` gives a step's `<system-out>` and `<system-err>`.
 */
export function writeJunit(
  write: (text: string) => void,
  started: RunStarted,
  finished: readonly StepFinished[],
  executed: ReadonlySet<string>,
  end: RunFinished | undefined,
  printed: (stepId: string) => string,
): void {
  // A group (a matrix, a uses: step) repeats its members' outcome; the members are the testcases,
  // and a group is one only when it failed on its own (a uses: step whose inputs were refused).
  const byId = new Map(finished.map((event) => [event.stepId, event]));
  const run = { ...started, steps: started.steps.filter((step) => step.kind === undefined || byId.get(step.id)?.error !== undefined) };
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const verdicts = run.steps.map((step) => verdictOf(byId.get(step.id), executed.has(step.id), end));
  const count = (kind: Verdict['kind']) => verdicts.filter((verdict) => verdict.kind === kind).length;
  const totals = `tests="${run.steps.length}" failures="${count('failure')}" errors="${count('error')}"`;
  const time = `time="${seconds(end?.durationMs ?? 0)}"`;
  const properties = [
    `      <property name="exit_code" value="${end?.exitCode ?? ''}"/>`,
    ...(cutOffBy(end?.exitCode) ? [`      <property name="stopped" value="${escapeXml(cutOffBy(end?.exitCode)!)}"/>`] : []),
  ];
  write(
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<testsuites name="rho" ${totals} ${time}>`,
      `  <testsuite name="${escapeXml(run.workflow)}" ${totals} skipped="${count('skipped')}" ${time} file="${escapeXml(run.file)}">`,
      '    <properties>',
      ...properties,
      '    </properties>',
      '',
    ].join('\n'),
  );
  for (const [index, step] of run.steps.entries()) {
    const attributes = `name="${escapeXml(step.name)}" classname="${escapeXml(`${run.workflow}.${step.id}`)}" time="${seconds(byId.get(step.id)?.durationMs ?? 0)}"`;
    const verdict = verdictElement(verdicts[index]!);
    const output = printed(step.id);
    if (verdict === undefined && output === '') {
      write(`    <testcase ${attributes}/>\n`);
      continue;
    }
    write(`    <testcase ${attributes}>\n${verdict === undefined ? '' : `${verdict}\n`}`);
    write(output);
    write('    </testcase>\n');
  }
  write('  </testsuite>\n</testsuites>\n');
}

const emptyReport = '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="rho" tests="0" failures="0" errors="0"/>\n';

/**
 * Collects a run's events and writes the JUnit report, to a file opened before the run, when the
 * run is over. Each testcase carries what its step printed, as the run's other outputs showed it
 * (so bounded the same way, with the same line for what was left out); a finished step's text
 * waits on disk, not in memory.
 */
export class JunitReporter implements Renderer {
  private run: RunStarted | undefined;
  private readonly finished: StepFinished[] = [];
  private readonly executed = new Set<string>();
  private end: RunFinished | undefined;
  private readonly printing = new Map<string, PrintedText>();
  private spool: Spool | undefined;

  constructor(private readonly file: FileSink) {}

  handle(event: RunEvent): void {
    switch (event.type) {
      case 'run_started':
        this.run = event;
        return;
      case 'steps_added':
        if (this.run) this.run = { ...this.run, steps: [...this.run.steps, ...event.steps] };
        return;
      case 'step_started':
        this.executed.add(event.stepId);
        return;
      case 'step_progress':
        if (event.stream) this.textOf(event.stepId)[event.stream] += `${event.message}\n`;
        return;
      case 'step_output_omitted':
        this.textOf(event.stepId).omission = describeOmission(event);
        return;
      case 'step_finished':
        this.finished.push(event);
        this.putAway(event.stepId);
        return;
      case 'run_finished':
        this.end = event;
        return;
      default:
        return;
    }
  }

  async close(): Promise<void> {
    try {
      // A workflow that never started (invalid, or refused at start) still leaves a well-formed report.
      if (!this.run) this.file.write(emptyReport);
      else
        writeJunit(
          (text) => this.file.write(text),
          this.run,
          this.finished,
          this.executed,
          this.end,
          (stepId) => this.printed(stepId),
        );
    } finally {
      this.spool?.close();
    }
    await this.file.end();
  }

  private textOf(stepId: string): PrintedText {
    let text = this.printing.get(stepId);
    if (!text) this.printing.set(stepId, (text = new PrintedText()));
    return text;
  }

  private putAway(stepId: string): void {
    const text = this.printing.get(stepId);
    if (!text) return;
    this.printing.delete(stepId);
    (this.spool ??= new Spool()).put(stepId, text.elements());
  }

  private printed(stepId: string): string {
    return this.printing.get(stepId)?.elements() ?? this.spool?.take(stepId) ?? '';
  }
}
