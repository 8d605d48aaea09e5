/** Edit distance counting insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The closest known names to an unknown one, best first: a name within a third of its length
 * in edits, or one that contains the unknown name (or the part after a namespace dot).
 */
export function closestNames(unknown: string, known: readonly string[], limit = 3): string[] {
  const needle = unknown.toLowerCase();
  const scored = known
    .map((name) => {
      const candidate = name.toLowerCase();
      const distance = Math.min(editDistance(needle, candidate), editDistance(needle, candidate.split('.').pop() ?? candidate));
      const contains = candidate.includes(needle) || (needle.length >= 3 && needle.includes(candidate));
      return { name, score: contains ? Math.min(distance, 1) : distance };
    })
    .filter(({ score }) => score <= Math.max(2, Math.ceil(needle.length / 3)))
    .sort((x, y) => x.score - y.score || x.name.localeCompare(y.name));
  return scored.slice(0, limit).map(({ name }) => name);
}
