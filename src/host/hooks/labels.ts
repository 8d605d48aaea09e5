import { HostError } from '../errors.js';

export const maxHostLabels = 32;
const labelKeyPattern = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/**
 * Non-secret strings a host attaches to every envelope for correlation (a CI job id, a ticket).
 * Never put prompts, credentials, environment values or tool output in labels.
 */
export type HostLabels = Readonly<Record<string, string>>;

/** Parses `KEY=VALUE` entries (the CLI's `--label`); a repeated key keeps its last value. */
export function parseHostLabels(entries: readonly string[]): HostLabels {
  const labels = new Map<string, string>();
  for (const entry of entries) {
    const equals = entry.indexOf('=');
    if (equals <= 0) throw new HostError('invalid_label', `label "${entry}" is not KEY=VALUE; write it as ci_job=1234`);
    labels.set(entry.slice(0, equals), entry.slice(equals + 1));
  }
  // fromEntries defines keys (an assignment of `__proto__` would drop it before the check).
  return parseHostLabelMap(Object.fromEntries(labels));
}

/** Checks a label map a host passes in, so a bad key fails before the run rather than inside a hook. */
export function parseHostLabelMap(labels: Readonly<Record<string, unknown>>): HostLabels {
  const entries = Object.entries(labels);
  if (entries.length > maxHostLabels) throw new HostError('invalid_label', `${entries.length} host labels given; at most ${maxHostLabels} are allowed`);
  for (const [key, value] of entries) {
    if (!labelKeyPattern.test(key)) {
      throw new HostError('invalid_label', `host label key "${key}" is invalid: a label key is a letter followed by up to 63 of A-Z a-z 0-9 _ . -`);
    }
    if (typeof value !== 'string') throw new HostError('invalid_label', `host label ${key} must be a string`);
  }
  return { ...(labels as Record<string, string>) };
}
