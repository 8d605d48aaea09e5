import { formatNumber } from './stats.js';

/** A target a figure must meet in full mode: measured `<=` limit. */
export interface Target {
  limit: number;
  /** How the target is written in the issue, e.g. "≤ 3 × node -e 0". */
  text: string;
}

/**
 * One reported figure. `value` is always relative — a ratio to a floor or a peer measured in
 * the same run, or a marginal cost (difference between two sizes) — so load on a shared
 * machine cancels out as far as it can. `basis` shows what the ratio was computed from.
 */
export interface Figure {
  suite: string;
  name: string;
  value: number;
  unit: string;
  basis: string;
  target?: Target;
}

export interface SuiteResult {
  suite: string;
  figures: Figure[];
  /** Everything measured (samples, medians, sizes, load), for bench/results/*.json. */
  raw: Record<string, unknown>;
  /** Peers or measurements left out, and why. */
  notes: string[];
}

export type Verdict = 'met' | 'missed' | 'no target';

export function verdict(figure: Figure): Verdict {
  if (!figure.target) return 'no target';
  return figure.value <= figure.target.limit ? 'met' : 'missed';
}

/** The Markdown table of one bench run: every figure with its target and verdict. */
export function markdownTable(results: readonly SuiteResult[], options: { enforce: boolean }): string {
  const lines = ['| Suite | Figure | Measured | Target | Verdict | From (medians) |', '| --- | --- | --- | --- | --- | --- |'];
  for (const result of results) {
    for (const figure of result.figures) {
      const outcome = verdict(figure);
      const shown = outcome === 'no target' ? '' : options.enforce ? outcome : `${outcome} (not enforced)`;
      lines.push(`| ${result.suite} | ${figure.name} | ${formatNumber(figure.value)} ${figure.unit} | ${figure.target?.text ?? ''} | ${shown} | ${figure.basis} |`);
    }
  }
  const notes = results.flatMap((result) => result.notes.map((note) => `- ${result.suite}: ${note}`));
  return notes.length > 0 ? `${lines.join('\n')}\n\n${notes.join('\n')}\n` : `${lines.join('\n')}\n`;
}
