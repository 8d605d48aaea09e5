/**
 * How far the steps are declared in model order: steps 0..n-1 are each marked once they have
 * declared their resources or will never run. A step waits until every step before it is
 * marked (the scheduler lets nothing start ahead of an undeclared earlier step). Each waiter is
 * woken once, so a run costs time linear in its steps however the marks arrive.
 */
export class DeclaredPrefix {
  private readonly marked: boolean[];
  private length = 0;
  private readonly waiters = new Map<number, () => void>();

  constructor(count: number) {
    this.marked = new Array<boolean>(count).fill(false);
  }

  mark(index: number): void {
    this.marked[index] = true;
    while (this.length < this.marked.length && this.marked[this.length]) {
      this.length += 1;
      this.waiters.get(this.length)?.();
      this.waiters.delete(this.length);
    }
  }

  /** Settles once every step before `index` is marked. One waiter per index. */
  before(index: number): Promise<void> {
    if (this.length >= index) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(index, resolve));
  }
}
