import { ToolError } from '../../host/errors.js';
import type { ResolvedPath, Workspace } from '../../host/workspace.js';
import { saveState, stateFilePath, type StepStateRecord, type UpToDateState } from './state-file.js';

/** How long a step's record may wait to be written with others while the run goes on. */
export const stateBatchMs = 250;

export interface StateRecorderOptions {
  workspace: Workspace;
  /** The state file as it was authorized for writing. */
  authorized: ResolvedPath;
  /** The state as this run read it (its salt is kept). */
  base: UpToDateState;
  warn(line: string): void;
  batchMs?: number;
}

/**
 * This run's changes to the state, written over the file while the run goes on: records of
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
    const { workspace, authorized, base, warn } = this.#options;
    try {
      // Resolved again: another run may have created the file since; it must still be the one authorized.
      const resolved = await workspace.resolveForWrite(stateFilePath);
      if (resolved.canonical !== authorized.canonical) throw new ToolError('path_refused', `${stateFilePath} now resolves to ${resolved.canonical}`);
      await saveState(resolved.canonical, base, new Map(this.#changes));
      this.#written = changed;
      return true;
    } catch (error) {
      if (!this.#warned) warn(`rho: could not save ${stateFilePath} (${(error as Error).message}); steps that ran will run again next time`);
      this.#warned = true;
      return false;
    }
  }
}
