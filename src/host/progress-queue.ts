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
 * wait for `room()` instead.
 */
export class ProgressQueue<E extends Progressive> {
  private readonly items: (E | Dropped)[] = [];
  private queuedProgress = 0;
  private queuedOutput = 0;
  private readonly roomWaiters: (() => void)[] = [];

  constructor(
    private readonly notice: (dropped: number, stepId: string) => ProgressEvent<E>,
    private readonly keepOutput = false,
  ) {}

  get empty(): boolean {
    return this.items.length === 0;
  }

  /**
   * While it holds as much kept output as a slow reader may be behind by (`maxQueuedOutput`), a
   * promise that settles once the reader has taken some or the queue is cleared; otherwise undefined.
   */
  room(): Promise<void> | undefined {
    if (this.queuedOutput < maxQueuedOutput) return undefined;
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  private settleRoom(): void {
    if (this.queuedOutput >= maxQueuedOutput) return;
    for (const resolve of this.roomWaiters.splice(0)) resolve();
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
    if (this.kept(item)) {
      this.queuedOutput -= 1;
      this.settleRoom();
    } else if (item?.type === 'step_progress') this.queuedProgress -= 1;
    return item;
  }

  /** Forgets what is queued (a reader that went away). */
  clear(): void {
    this.items.length = 0;
    this.queuedProgress = 0;
    this.queuedOutput = 0;
    this.settleRoom();
  }
}

/** Room once every reader has it: the promises of those that have none yet, joined; undefined when all have room. */
export function roomOfAll(rooms: readonly (Promise<void> | undefined)[]): Promise<void> | undefined {
  const waits = rooms.filter((room) => room !== undefined);
  if (waits.length === 0) return undefined;
  return waits.length === 1 ? waits[0] : Promise.all(waits).then(() => undefined);
}

/** The notice that stands for dropped progress messages. */
export function droppedProgressMessage(dropped: number): string {
  return `(${dropped} progress messages were dropped while the reader was behind)`;
}
