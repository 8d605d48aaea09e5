/** Progress events a slow reader keeps; more are dropped (and counted), other events never are. */
export const maxQueuedProgress = 1024;

/**
 * Output events (up to 16 KiB of text each) a slow reader may be behind by before their writers
 * wait, when output is kept (`keepOutput`): a few MiB held, whatever the output's size.
 */
export const maxQueuedOutput = 128;

interface Progressive {
  type: string;
  stepId?: string;
  /** Set on progress that carries a process's output (`step_progress` of a stream). */
  stream?: string;
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
 * With `keepOutput`, so is the progress that carries a process's output: its writers are to
 * wait while the queue is `full` instead (`EventDelivery.room`).
 */
export class ProgressQueue<E extends Progressive> {
  private readonly items: (E | Dropped)[] = [];
  private queuedProgress = 0;
  private queuedOutput = 0;

  constructor(
    private readonly notice: (dropped: number, stepId: string) => ProgressEvent<E>,
    private readonly keepOutput = false,
  ) {}

  get empty(): boolean {
    return this.items.length === 0;
  }

  /** Holds as much kept output as a slow reader may be behind by: its writers should wait. */
  get full(): boolean {
    return this.queuedOutput >= maxQueuedOutput;
  }

  private kept(event: E | undefined): boolean {
    return this.keepOutput && event?.type === 'step_progress' && event.stream !== undefined;
  }

  push(event: E): void {
    if (this.kept(event)) this.queuedOutput += 1;
    else if (event.type === 'step_progress') {
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
    if (this.kept(item)) this.queuedOutput -= 1;
    else if (item?.type === 'step_progress') this.queuedProgress -= 1;
    return item;
  }

  /** Forgets what is queued (a reader that went away). */
  clear(): void {
    this.items.length = 0;
    this.queuedProgress = 0;
    this.queuedOutput = 0;
  }
}

/** The notice that stands for dropped progress messages. */
export function droppedProgressMessage(dropped: number): string {
  return `(${dropped} progress messages were dropped while the reader was behind)`;
}
