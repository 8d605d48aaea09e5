import { HostError } from './errors.js';
import type { HostEvent } from './events.js';
import type { HostInputRequest, HostInputResponse, Questioner } from './host-input.js';
import { droppedProgressMessage, maxQueuedProgress, ProgressQueue } from './progress-queue.js';
import type { ToolResult } from './tool.js';

/** What a started call reports: its host events, questions waiting for `respond()`, and last its result. */
export type ToolHostRunEvent =
  | HostEvent
  | { type: 'input_requested'; callId: string; requestId: string; request: HostInputRequest }
  | { type: 'call_finished'; callId: string; result: ToolResult };

export { maxQueuedProgress };

interface PendingQuestion {
  resolve(response: HostInputResponse): void;
  reject(error: unknown): void;
}

/**
 * One call started with `ToolHost.start`: an event stream, answers to its questions, cancellation
 * and a final typed result. Leaving the event loop early (`break`) or disposing of an unfinished
 * run (`await using`) cancels it.
 */
export class ToolHostRun implements AsyncDisposable {
  readonly result: Promise<ToolResult>;
  private readonly queue: ProgressQueue<ToolHostRunEvent>;
  private readonly waiting: ((event: IteratorResult<ToolHostRunEvent>) => void)[] = [];
  private readonly questions = new Map<string, PendingQuestion>();
  private nextQuestion = 0;
  private finished = false;

  /**
   * @param keepOutput every byte of output was asked for: events carrying it are kept, and the call waits while its reader is behind (`room`)
   * @param launch runs the call with the given questioner and signal; it is called once, at once.
   */
  constructor(
    readonly callId: string,
    stepId: string,
    private readonly controller: AbortController,
    keepOutput: boolean,
    launch: (questioner: Questioner) => Promise<ToolResult>,
  ) {
    this.queue = new ProgressQueue((dropped) => ({ type: 'step_progress', stepId, message: droppedProgressMessage(dropped) }), keepOutput);
    const questioner: Questioner = { ask: (request, signal) => this.ask(request, signal) };
    this.result = launch(questioner)
      .then((result) => {
        this.push({ type: 'call_finished', callId, result });
        return result;
      })
      .finally(() => {
        this.finished = true;
        for (const resolve of this.waiting.splice(0)) resolve({ value: undefined, done: true });
      });
  }

  /** Called by the host for each event of this call. */
  accept(event: HostEvent): void {
    this.push(event);
  }

  /** Answers a question announced by an `input_requested` event. */
  respond(requestId: string, response: HostInputResponse): void {
    const pending = this.questions.get(requestId);
    if (!pending) throw new HostError('usage', `no question ${requestId} is waiting for an answer`);
    this.questions.delete(requestId);
    pending.resolve(response);
  }

  /** While the reader of `events()` is `maxQueuedOutput` output events behind, a promise that settles once it has read on; otherwise undefined. */
  room(): Promise<void> | undefined {
    return this.queue.room();
  }

  cancel(): void {
    if (!this.finished) this.controller.abort('cancelled');
  }

  events(): AsyncIterableIterator<ToolHostRunEvent> {
    const next = (): Promise<IteratorResult<ToolHostRunEvent>> => {
      const event = this.queue.take();
      if (event) return Promise.resolve({ value: event, done: false });
      if (this.finished) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => this.waiting.push(resolve));
    };
    const iterator: AsyncIterableIterator<ToolHostRunEvent> = {
      next,
      return: async () => {
        this.cancel();
        // Nobody reads on: what waited for room goes on (and ends, cancelled).
        this.queue.clear();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.cancel();
    await this.result;
  }

  private ask(request: HostInputRequest, signal: AbortSignal): Promise<HostInputResponse> {
    const requestId = `q${++this.nextQuestion}`;
    return new Promise<HostInputResponse>((resolve, reject) => {
      const onAbort = () => {
        this.questions.delete(requestId);
        reject(signal.reason);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.questions.set(requestId, {
        resolve: (response) => {
          signal.removeEventListener('abort', onAbort);
          resolve(response);
        },
        reject,
      });
      this.push({ type: 'input_requested', callId: this.callId, requestId, request });
    });
  }

  private push(event: ToolHostRunEvent): void {
    const resolve = this.waiting.shift();
    if (resolve) resolve({ value: event, done: false });
    else this.queue.push(event);
  }
}
