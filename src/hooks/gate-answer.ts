import { z } from 'zod';
import type { GateAnswer } from '../host/gates.js';

/** What a gate program prints on stdout. Anything else is a failure, and failures deny unless the gate opted out. */
export const gateAnswerSchema = z.discriminatedUnion('decision', [
  z.strictObject({ decision: z.literal('continue') }),
  z.strictObject({
    decision: z.literal('deny'),
    reason: z.string().max(2000).optional().describe('Shown to the person whose call was denied'),
  }),
]);

export type ParsedGateAnswer = { ok: true; answer: GateAnswer } | { ok: false; problem: string };

/** Parses a gate's stdout strictly: one JSON object, a known decision, no other field. */
export function parseGateAnswer(stdout: string): ParsedGateAnswer {
  const text = stdout.trim();
  if (text === '') return { ok: false, problem: 'printed nothing on stdout (expected {"decision": "continue"} or {"decision": "deny", "reason": "..."})' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, problem: `printed something that is not JSON: ${preview(text)}` };
  }
  const parsed = gateAnswerSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, problem: `printed an answer that is not {"decision": "continue"} or {"decision": "deny", "reason": "..."}: ${preview(text)}` };
  const wire = parsed.data;
  return { ok: true, answer: wire.decision === 'continue' ? wire : { decision: 'deny', reason: wire.reason || 'no reason given' } };
}

function preview(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
