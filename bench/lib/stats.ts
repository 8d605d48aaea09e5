import { ToolError } from '../../src/host/errors.js';
/** Median of a non-empty sample (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new ToolError('internal', 'median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Cost of one more unit of work: the difference between two sizes of the same run divided by
 * the difference in size, so the fixed start-up cost both runs pay cancels out.
 */
export function marginal(small: { size: number; time: number }, large: { size: number; time: number }): number {
  return (large.time - small.time) / (large.size - small.size);
}

/** A number with a sensible count of significant digits for a table. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 100) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  return value.toFixed(2);
}
