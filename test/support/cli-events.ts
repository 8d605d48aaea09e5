import { runEventSchema, type RunEvent } from '../../src/host/events.js';
import { runCli, type CliResult } from './cli.js';

export interface EventsResult extends CliResult {
  /** Every event the run reported, each checked against the one event schema. */
  events: RunEvent[];
  /** The step_finished events by step id. */
  finished: Map<string, Extract<RunEvent, { type: 'step_finished' }>>;
}

/**
 * Runs the built CLI with `--output json` and reads its stdout as events, so a test asserts on
 * what happened rather than on how a renderer printed it.
 */
export async function runCliEvents(args: readonly string[], options: Parameters<typeof runCli>[1]): Promise<EventsResult> {
  const result = await runCli([...args, '--output', 'json'], options);
  const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
  const events = lines.map((line) => runEventSchema.parse(stripEnvelope(JSON.parse(line))));
  const finished = new Map(events.flatMap((event) => (event.type === 'step_finished' ? [[event.stepId, event] as const] : [])));
  return { ...result, events, finished };
}

/** An NDJSON line is an event with the line's own fields (`v`, `seq`, `time`, `run_id`) around it. */
function stripEnvelope(line: Record<string, unknown>): Record<string, unknown> {
  const { v: _v, seq: _seq, time: _time, run_id: runId, ...event } = line;
  return event.type === 'run_started' ? { ...event, runId } : event;
}
