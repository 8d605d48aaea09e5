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

  async close(): Promise<void> {
    await Promise.all(this.renderers.map((renderer) => renderer.close()));
  }
}
