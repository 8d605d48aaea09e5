/**
 * How far the calls are declared in model order: calls 0..n-1 are each marked once they have
 * declared their resources or will never run. A call waits until every call before it is
 * marked (the scheduler lets nothing start ahead of an undeclared earlier call). Each waiter is
 * woken once, so a run costs time linear in its calls however the marks arrive.
 */
export class DeclaredPrefix {
  private readonly marked: boolean[];
  private length = 0;
  private readonly waiters = new Map<number, () => void>();

  constructor(count = 0) {
    this.marked = new Array<boolean>(count).fill(false);
  }

  /** Adds one unmarked call after the last. */
  extend(): void {
    this.marked.push(false);
  }

  mark(index: number): void {
    this.marked[index] = true;
    while (this.length < this.marked.length && this.marked[this.length]) {
      this.length += 1;
      this.waiters.get(this.length)?.();
      this.waiters.delete(this.length);
    }
  }

  /** Settles once every call before `index` is marked. One waiter per index. */
  before(index: number): Promise<void> {
    if (this.length >= index) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(index, resolve));
  }
}
