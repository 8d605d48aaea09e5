/** Progress events a slow reader keeps; more are dropped (and counted), other events never are. */
export const maxQueuedProgress = 1024;

interface Progressive {
  type: string;
  stepId?: string;
}

type ProgressEvent<E> = Extract<E, { type: 'step_progress' }>;

/**
 * The events waiting for one slow reader, in order. Progress is cosmetic: past
 * `maxQueuedProgress` queued messages it is dropped rather than kept without bound, and the
 * next other event is preceded by a notice of how many were dropped. Every other event is kept.
 */
export class ProgressQueue<E extends Progressive> {
  private readonly events: E[] = [];
  private queuedProgress = 0;
  private dropped = 0;
  private droppedStepId = '';

  constructor(private readonly notice: (dropped: number, stepId: string) => ProgressEvent<E>) {}

  get empty(): boolean {
    return this.events.length === 0 && this.dropped === 0;
  }

  push(event: E): void {
    if (event.type === 'step_progress') {
      if (this.queuedProgress >= maxQueuedProgress) {
        this.dropped += 1;
        this.droppedStepId = event.stepId ?? '';
        return;
      }
      this.queuedProgress += 1;
    }
    this.events.push(event);
  }

  /** The next event; where progress was dropped, a notice of it comes before the next other event. */
  take(): E | undefined {
    const next = this.events[0];
    if (this.dropped > 0 && next?.type !== 'step_progress') {
      const notice = this.notice(this.dropped, this.droppedStepId);
      this.dropped = 0;
      return notice;
    }
    const event = this.events.shift();
    if (event?.type === 'step_progress') this.queuedProgress -= 1;
    return event;
  }

  /** Forgets what is queued (a reader that went away). */
  clear(): void {
    this.events.length = 0;
    this.queuedProgress = 0;
    this.dropped = 0;
  }
}

/** The notice that stands for dropped progress messages. */
export function droppedProgressMessage(dropped: number): string {
  return `(${dropped} progress messages were dropped while the reader was behind)`;
}
