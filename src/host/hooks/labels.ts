import { z } from 'zod';
import { HostError } from '../errors.js';

export const maxHostLabels = 32;

/**
 * Non-secret strings a host attaches to every envelope for correlation (a CI job id, a ticket).
 * Never put prompts, credentials, environment values or tool output in labels.
 */
export const hostLabelsSchema = z
  .record(z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, 'a label key is a letter followed by up to 63 of A-Z a-z 0-9 _ . -'), z.string())
  .refine((labels) => Object.keys(labels).length <= maxHostLabels, `at most ${maxHostLabels} host labels`);

export type HostLabels = z.infer<typeof hostLabelsSchema>;

/** Parses `--label KEY=VALUE` entries; a repeated key keeps its last value. */
export function parseHostLabels(entries: readonly string[]): HostLabels {
  const labels: Record<string, string> = {};
  for (const entry of entries) {
    const equals = entry.indexOf('=');
    if (equals <= 0) throw new HostError('invalid_label', `label "${entry}" is not KEY=VALUE; write it as --label ci_job=1234`);
    labels[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  return parseHostLabelMap(labels);
}

/** Checks a label map a host passes in, so a bad key fails before the run rather than inside a hook. */
export function parseHostLabelMap(labels: Readonly<Record<string, string>>): HostLabels {
  const parsed = hostLabelsSchema.safeParse(labels);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` (${issue.path.join('.')})` : '';
  throw new HostError('invalid_label', `invalid host label${where}: ${issue?.message ?? 'not a string map'}`);
}
