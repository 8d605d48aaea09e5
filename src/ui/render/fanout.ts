import { HostError } from '../../host/errors.js';
import type { RunEvent } from '../../host/events.js';
import type { Renderer } from './renderer.js';

/** Sends every event to several renderers (a display, an events file, a report). */
export class FanoutRenderer implements Renderer {
  readonly promptTerminal;

  constructor(private readonly renderers: readonly Renderer[]) {
    this.promptTerminal = renderers.find((renderer) => renderer.promptTerminal)?.promptTerminal;
  }

  handle(event: RunEvent): void {
    for (const renderer of this.renderers) renderer.handle(event);
  }

  /** Closes every renderer, even when one fails; a failure of one is thrown, of several one error naming each. */
  async close(): Promise<void> {
    const failures = (await Promise.allSettled(this.renderers.map((renderer) => renderer.close())))
      .filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
      .map((outcome) => outcome.reason as unknown);
    const [first, ...others] = failures;
    if (failures.length === 0) return;
    if (others.length === 0) throw first;
    throw new HostError(first instanceof HostError ? first.kind : 'output_failed', failures.map((failure) => (failure as Error).message).join('; '), { cause: first });
  }
}
