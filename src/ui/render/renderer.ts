import type { RunEvent } from '../../host/events.js';
import type { PromptTerminal } from '../questioner/index.js';

/** Shows a run to a person or a log. It only draws: the runner owns order and concurrency. */
export interface Renderer {
  handle(event: RunEvent): void;
  /** Where prompts must draw while this renderer owns the terminal (listr2 hides direct writes). */
  readonly promptTerminal?: PromptTerminal;
  /** Resolves once everything has been drawn (called after run_finished). */
  close(): Promise<void>;
}

/** Where text goes; `write` receives whole lines (with their newline). */
export interface TextSink {
  write(text: string): void;
}
