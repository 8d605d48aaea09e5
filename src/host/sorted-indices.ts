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
