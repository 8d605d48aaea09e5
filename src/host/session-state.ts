import { ToolError } from './errors.js';
/**
 * A typed slot in a run's session state. `create` runs once, on first use, and may register
 * disposers on the session (a background-process table registers "stop them all").
 */
export interface SessionKey<T> {
  readonly name: string;
  create(session: SessionState): T;
}

/** Runs when the session ends; returns notices worth reporting (for example, what it had to stop). */
// biome-ignore lint/suspicious/noConfusingVoidType: a disposer with nothing to report returns nothing, which only `void` accepts
export type SessionDisposer = () => Promise<readonly string[] | void> | readonly string[] | void;

/**
 * State that lives for one run (one ToolHost) and is shared by its calls: tools keep what must
 * outlive a single call here, such as background processes, and clean it up in `dispose()`.
 */
export class SessionState {
  private readonly values = new Map<SessionKey<unknown>, unknown>();
  private readonly disposers: SessionDisposer[] = [];
  private disposed = false;

  /** The value for a key, created on first use. */
  use<T>(key: SessionKey<T>): T {
    if (this.disposed) throw new ToolError('internal', `session state ${key.name} was used after the run ended`);
    if (!this.values.has(key)) this.values.set(key, key.create(this));
    return this.values.get(key) as T;
  }

  onDispose(disposer: SessionDisposer): void {
    this.disposers.push(disposer);
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  /**
   * Runs every disposer once, newest first, and collects their notices. A disposer that fails
   * does not stop the others; its failure becomes a notice.
   */
  async dispose(): Promise<readonly string[]> {
    if (this.disposed) return [];
    this.disposed = true;
    const notices: string[] = [];
    for (const disposer of this.disposers.reverse()) {
      try {
        notices.push(...((await disposer()) ?? []));
      } catch (cause) {
        notices.push(`cleaning up the session failed: ${(cause as Error).message}`);
      }
    }
    this.disposers.length = 0;
    this.values.clear();
    return notices;
  }
}
