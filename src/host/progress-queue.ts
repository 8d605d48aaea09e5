/** Progress events a slow reader keeps; more are dropped (and counted), other events never are. */
export const maxQueuedProgress = 1024;

interface Progressive {
  type: string;
  stepId?: string;
}

type ProgressEvent<E> = Extract<E, { type: 'step_progress' }>;

/** Where progress was dropped, in the queue's order: it becomes a notice when the reader gets there. */
class Dropped {
  count = 1;
  constructor(readonly stepId: string) {}
}

/**
 * The events waiting for one slow reader, in order. Progress is cosmetic: past
 * `maxQueuedProgress` queued messages it is dropped rather than kept without bound, and a
 * notice of how many were dropped takes their place in the order. Every other event is kept.
 */
export class ProgressQueue<E extends Progressive> {
  private readonly items: (E | Dropped)[] = [];
  private queuedProgress = 0;

  constructor(private readonly notice: (dropped: number, stepId: string) => ProgressEvent<E>) {}

  get empty(): boolean {
    return this.items.length === 0;
  }

  push(event: E): void {
    if (event.type === 'step_progress') {
      if (this.queuedProgress >= maxQueuedProgress) {
        const last = this.items.at(-1);
        if (last instanceof Dropped) last.count += 1;
        else this.items.push(new Dropped(event.stepId ?? ''));
        return;
      }
      this.queuedProgress += 1;
    }
    this.items.push(event);
  }

  /** The next event, or the notice of the progress dropped at this place. */
  take(): E | undefined {
    const item = this.items.shift();
    if (item instanceof Dropped) return this.notice(item.count, item.stepId);
    if (item?.type === 'step_progress') this.queuedProgress -= 1;
    return item;
  }

  /** Forgets what is queued (a reader that went away). */
  clear(): void {
    this.items.length = 0;
    this.queuedProgress = 0;
  }
}

/** The notice that stands for dropped progress messages. */
export function droppedProgressMessage(dropped: number): string {
  return `(${dropped} progress messages were dropped while the reader was behind)`;
}
