import type { RunEvent } from '../../host/events.js';
import type { Renderer, TextSink } from './renderer.js';
import { safeJson } from '../safe-text.js';

/** Version of the event line format (`v`); bumped only on incompatible changes. */
export const eventFormatVersion = 1;

/**
 * NDJSON events (SPEC §7): one JSON object per line with `v`, a monotonically increasing
 * `seq`, the time and the run id, then the event's own fields.
 */
export class NdjsonRenderer implements Renderer {
  private seq = 0;
  private runId = '';

  constructor(
    private readonly out: TextSink & { end?(): Promise<void> | void },
    private readonly now: () => Date = () => new Date(),
  ) {}

  handle(event: RunEvent): void {
    if (event.type === 'run_started') this.runId = event.runId;
    const { type, ...fields } = event;
    if ('runId' in fields) delete (fields as { runId?: string }).runId;
    const line = { v: eventFormatVersion, seq: ++this.seq, time: this.now().toISOString(), run_id: this.runId, type, ...fields };
    // `##[` can only stand inside a JSON string, where `\u0023` is the same `#`: the GitHub Actions
    // runner would read `##[name]` anywhere in a line as a workflow command.
    // An events line read at a terminal is as safe as any other output (`safeJson`), and means the same.
    this.out.write(`${safeJson(JSON.stringify(line).replaceAll('##[', '\\u0023#['))}\n`);
  }

  async close(): Promise<void> {
    await this.out.end?.();
  }
}
