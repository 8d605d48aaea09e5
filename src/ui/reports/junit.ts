import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunEvent } from '../../host/events.js';
import type { Renderer } from '../render/renderer.js';

type StepFinished = Extract<RunEvent, { type: 'step_finished' }>;

function escapeXml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** The JUnit XML of a finished run: one testcase per step, in model order. */
export function formatJunit(run: { workflow: string; file: string; steps: readonly { id: string; name: string; tool: string }[] }, finished: readonly StepFinished[], totalMs: number): string {
  const byId = new Map(finished.map((event) => [event.stepId, event]));
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const cases = run.steps.map((step) => {
    const event = byId.get(step.id);
    const attributes = `name="${escapeXml(step.name)}" classname="${escapeXml(`${run.workflow}.${step.id}`)}" time="${seconds(event?.durationMs ?? 0)}"`;
    const body = testcaseBody(event);
    return body ? `    <testcase ${attributes}>\n${body}\n    </testcase>` : `    <testcase ${attributes}/>`;
  });
  const count = (statuses: readonly string[]) => finished.filter((event) => statuses.includes(event.status) && !event.continueOnError).length;
  const failures = count(['failure', 'denied']);
  const skipped = finished.filter((event) => ['skipped', 'cancelled', 'interrupted'].includes(event.status)).length;
  const suite = `name="${escapeXml(run.workflow)}" tests="${run.steps.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(totalMs)}" file="${escapeXml(run.file)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="rho" tests="${run.steps.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(totalMs)}">`,
    `  <testsuite ${suite}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

function testcaseBody(event: StepFinished | undefined): string | undefined {
  if (!event) return '      <skipped message="not reported"/>';
  const message = event.error?.message ?? event.reason ?? event.status;
  switch (event.status) {
    case 'success':
      return undefined;
    case 'failure':
    case 'denied':
      if (event.continueOnError) return `      <system-out>${escapeXml(`${event.status} (continue_on_error): ${message}`)}</system-out>`;
      return `      <failure message="${escapeXml(message)}" type="${escapeXml(event.error?.kind ?? event.status)}">${escapeXml(message)}</failure>`;
    default:
      return `      <skipped message="${escapeXml(`${event.status}: ${message}`)}"/>`;
  }
}

/** Collects a run's events and writes the JUnit report when the run is over. */
export class JunitReporter implements Renderer {
  private run: Extract<RunEvent, { type: 'run_started' }> | undefined;
  private readonly finished: StepFinished[] = [];
  private totalMs = 0;

  constructor(private readonly file: string) {}

  handle(event: RunEvent): void {
    if (event.type === 'run_started') this.run = event;
    else if (event.type === 'step_finished') this.finished.push(event);
    else if (event.type === 'run_finished') this.totalMs = event.durationMs;
  }

  async close(): Promise<void> {
    if (!this.run) return;
    await mkdir(path.dirname(path.resolve(this.file)), { recursive: true });
    await writeFile(this.file, formatJunit(this.run, this.finished, this.totalMs));
  }
}
