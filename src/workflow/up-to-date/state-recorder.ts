import type { StateStore, StepStateRecord } from './state-file.js';

/** How long a step's record may wait to be written with others while the run goes on. */
export const stateBatchMs = 250;

export interface StateRecorderOptions {
  store: StateStore;
  warn(line: string): void;
  batchMs?: number;
}

/**
 * This run's changes to the state, written over the store while the run goes on: records of
 * steps that succeeded in batches (at most one write per `batchMs`), a record a step must lose
 * before it runs at once, and whatever is left at the end. So a run that dies keeps what had
 * finished a moment before, and never a record its running step would have invalidated.
 * Writes are one at a time; each writes every change so far.
 */
export class StateRecorder {
  readonly #options: StateRecorderOptions;
  readonly #changes = new Map<string, StepStateRecord | undefined>();
  /** Counts changes; `#written` is the count the file holds. */
  #changed = 0;
  #written = 0;
  #writing: Promise<boolean> = Promise.resolve(true);
  #timer: NodeJS.Timeout | undefined;
  #warned = false;

  constructor(options: StateRecorderOptions) {
    this.#options = options;
  }

  /** A step that succeeded: written with the next batch. */
  record(key: string, record: StepStateRecord): void {
    this.#change(key, record);
  }

  /** A record that must not outlive this run; `durably` waits until the file no longer holds it. */
  async forget(key: string, durably = false): Promise<void> {
    this.#change(key, undefined);
    if (durably) await this.#flush();
  }

  /** Writes what is left (nothing when nothing changed). */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#flush();
  }

  #change(key: string, record: StepStateRecord | undefined): void {
    this.#changes.set(key, record);
    this.#changed += 1;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.#flush();
    }, this.#options.batchMs ?? stateBatchMs).unref();
  }

  #flush(): Promise<boolean> {
    this.#writing = this.#writing.then(() => this.#write());
    return this.#writing;
  }

  async #write(): Promise<boolean> {
    if (this.#written === this.#changed) return true;
    const changed = this.#changed;
    const { store, warn } = this.#options;
    try {
      await store.save(new Map(this.#changes));
      this.#written = changed;
      return true;
    } catch (error) {
      if (!this.#warned) warn(`rho: could not save the up-to-date state in ${store.place} (${(error as Error).message}); steps that ran will run again next time`);
      this.#warned = true;
      return false;
    }
  }
}
