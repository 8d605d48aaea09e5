import { HostError } from '../host/errors.js';
const units: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Longest duration rho accepts anywhere (a day): a typo like `10000m` is caught, not waited out. */
export const maxDurationMs = 24 * 3_600_000;

export const durationPattern = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

/** Parses `500ms`, `90s`, `5m`, `1h` (or a bare number of seconds) into milliseconds. */
export function parseDuration(raw: string | number): number {
  const text = typeof raw === 'number' ? `${raw}s` : raw.trim();
  const match = durationPattern.exec(text);
  if (!match) throw new HostError('usage', `"${raw}" is not a duration (use e.g. 500ms, 90s, 5m, 1h)`);
  const ms = Math.round(Number(match[1]) * units[match[2]!]!);
  if (ms <= 0) throw new HostError('usage', `duration "${raw}" must be greater than zero`);
  if (ms > maxDurationMs) throw new HostError('usage', `duration "${raw}" is longer than 24h`);
  return ms;
}
