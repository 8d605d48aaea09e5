/** Inserts `value` into an ascending array of indices, keeping it ascending and free of repeats. */
export function insertSorted(sorted: number[], value: number): void {
  const at = positionOf(sorted, value);
  if (sorted[at] !== value) sorted.splice(at, 0, value);
}

/** Where `value` is, or would go, in an ascending array (searching from `from`). */
export function positionOf(sorted: readonly number[], value: number, from = 0): number {
  let low = from;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Call indices in ascending order, free of repeats. Calls are mostly added in ascending order
 * and removed roughly in that order too, so an entry is usually pushed at the end (O(1)) and
 * dropped from the front by moving `start` (O(1) amortized: the dead front is cut off in place
 * once it is half the array). Adding or removing in the middle moves the entries after it.
 */
export class IndexList {
  private readonly indices: number[] = [];
  private start = 0;

  insert(index: number): void {
    const last = this.indices.length > this.start ? (this.indices[this.indices.length - 1] as number) : -1;
    if (last < index) {
      this.indices.push(index);
      return;
    }
    if (last === index) return;
    const at = positionOf(this.indices, index, this.start);
    if (this.indices[at] !== index) this.indices.splice(at, 0, index);
  }

  remove(index: number): void {
    const at = positionOf(this.indices, index, this.start);
    if (this.indices[at] !== index) return;
    if (at > this.start) {
      this.indices.splice(at, 1);
      return;
    }
    this.start += 1;
    if (this.start * 2 > this.indices.length) {
      this.indices.copyWithin(0, this.start);
      this.indices.length -= this.start;
      this.start = 0;
    }
  }

  get empty(): boolean {
    return this.indices.length <= this.start;
  }

  /** The highest index below `before` if it is above `floor`, else `floor`. */
  latestBefore(before: number, floor: number): number {
    const at = positionOf(this.indices, before, this.start) - 1;
    const index = at >= this.start ? (this.indices[at] as number) : floor;
    return Math.max(index, floor);
  }
}
