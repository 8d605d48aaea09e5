import { z } from 'zod';
import { boundSections, defaultPayloadBounds, truncationSchema, type JsonObject, type JsonValue, type PayloadBounds, type Truncation } from './bounds.js';
import type { HookEventKind } from './kinds.js';
import { delegationSchema, type Delegation } from './delegation.js';
import type { HostLabels } from './labels.js';
import { hookPayloadFor, hookPayloadSchemas, type HookPayloads, type HookSourceEvent } from './payloads.js';

/** The wire version of hook envelopes; `host_labels` arrived with version 2. */
export const hookSchemaVersion = 2;

export { delegationSchema, type Delegation } from './delegation.js';

function envelopeFor<K extends HookEventKind>(kind: K) {
  return z.strictObject({
    schema_version: z.literal(hookSchemaVersion),
    kind: z.literal(kind),
    run_id: z.string(),
    session_id: z.string(),
    delegation: delegationSchema,
    host_labels: z.record(z.string(), z.string()),
    payload: hookPayloadSchemas[kind],
    truncation: truncationSchema().describe('Every field that was shortened to fit the payload bounds'),
  });
}

/** One event as a hook program receives it on stdin. */
export const hookEnvelopeSchema = z.discriminatedUnion('kind', [
  envelopeFor('session_started'),
  envelopeFor('step_started'),
  envelopeFor('before_tool_use'),
  envelopeFor('after_tool_use'),
  envelopeFor('step_finished'),
  envelopeFor('run_completed'),
  envelopeFor('run_failed'),
]);

export type HookEnvelope = z.infer<typeof hookEnvelopeSchema>;
export type HookEnvelopeOf<K extends HookEventKind> = Extract<HookEnvelope, { kind: K }>;

/** Who is running and how envelopes are bounded: fixed for a run. */
export interface EnvelopeContext {
  runId: string;
  sessionId: string;
  delegation: Delegation;
  hostLabels: HostLabels;
  bounds: PayloadBounds;
  /** Masks secret values in every string before bounds apply (the run's secret masker). */
  redact?: (text: string) => string;
}

export function rootEnvelopeContext(runId: string, overrides: Partial<EnvelopeContext> = {}): EnvelopeContext {
  return { runId, sessionId: runId, delegation: { role: 'root' }, hostLabels: {}, bounds: defaultPayloadBounds, ...overrides };
}

/**
 * Builds a bounded envelope: secrets masked, long fields cut, and every cut listed in `truncation`.
 * `delegation` is the call's own, when it has one (a call of a nested group); the run's otherwise.
 */
export function buildEnvelope<K extends HookEventKind>(kind: K, payload: HookPayloads[K], context: EnvelopeContext, delegation?: Delegation): HookEnvelopeOf<K> {
  const redact = context.redact ?? ((text: string) => text);
  const sections: JsonObject = {
    host_labels: mapStrings(context.hostLabels as JsonObject, redact),
    payload: mapStrings(payload as JsonValue, redact),
  };
  const assemble = (truncation: Truncation) => ({
    schema_version: hookSchemaVersion,
    kind,
    run_id: context.runId,
    session_id: context.sessionId,
    delegation: delegation ?? context.delegation,
    host_labels: sections.host_labels,
    payload: sections.payload,
    truncation,
  });
  const truncation = boundSections(sections, (report) => JSON.stringify(assemble(report)), context.bounds);
  return assemble(truncation) as HookEnvelopeOf<K>;
}

/** The envelope of an observed event; a call's result carries the call's delegation. */
export function observedEnvelope(source: HookSourceEvent, context: EnvelopeContext): HookEnvelope {
  const { kind, payload } = hookPayloadFor(source);
  return buildEnvelope(kind, payload as never, context, source.kind === 'after_tool_use' ? source.delegation : undefined);
}

/** A deep copy with every string passed through `map` (the copy is what bounds cut in place). */
function mapStrings(value: JsonValue, map: (text: string) => string): JsonValue {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]));
  }
  return value;
}
