import { z } from 'zod';
import { minimumPayloadBounds } from '../host/hooks/bounds.js';
import { observedKinds } from '../host/hooks/kinds.js';

export const defaultHookTimeoutMs = 10_000;

const command = z
  .tuple([z.string().min(1)], z.string())
  .describe('Program and its arguments (argv, not shell text); relative paths are relative to the file that declares the hook');

const name = z.string().min(1).max(64).describe('Name shown in warnings, denials and the latency summary (default: the command)');
const timeoutMs = z.number().int().min(1).max(600_000).default(defaultHookTimeoutMs);
const writes = z
  .array(z.string().min(1).max(4096))
  .max(100)
  .default([])
  .describe('Directories (relative to the file that declares the hook) the hook may write into when processes are confined; created if missing');

const gateEntrySchema = z.strictObject({
  name: name.optional(),
  command,
  tools: z.array(z.string().min(1)).min(1).optional().describe('Only calls of these tools are sent to the gate (default: every tool)'),
  timeout_ms: timeoutMs,
  writes,
  on_error: z.enum(['deny', 'continue']).default('deny').describe('deny: a failing gate denies the call (fail closed); continue: advisory gate, its failures let the call through'),
});

const observerEntrySchema = z.strictObject({
  name: name.optional(),
  command,
  events: z
    .array(
      z.enum(observedKinds, {
        error: (issue) => (issue.input === 'before_tool_use' ? 'before_tool_use goes only to [[pre_tool_use]] gates, not to observers' : undefined),
      }),
    )
    .min(1)
    .optional()
    .describe('Event kinds to receive (default: every kind but before_tool_use)'),
  timeout_ms: timeoutMs,
  writes,
});

const limitsSchema = z.strictObject({
  field_bytes: z.number().int().min(minimumPayloadBounds.fieldBytes).optional().describe('Longest string field in an envelope (default 8192)'),
  envelope_bytes: z.number().int().min(minimumPayloadBounds.envelopeBytes).optional().describe('Longest envelope (default 65536)'),
  observer_queue: z.number().int().min(1).max(100_000).optional().describe('Events that may wait for one observer (default 256)'),
  drain_timeout_ms: z.number().int().min(0).max(600_000).optional().describe('How long the end of a run waits for observers (default 5000)'),
});

/** The hooks file (TOML, `--hooks`) and the workflow's `hooks:` key share this structure. */
export const hooksConfigSchema = z.strictObject({
  pre_tool_use: z.array(gateEntrySchema).default([]),
  observer: z.array(observerEntrySchema).default([]),
  limits: limitsSchema.default({}),
});

export type HooksConfig = z.infer<typeof hooksConfigSchema>;
export type GateEntry = z.infer<typeof gateEntrySchema>;
export type ObserverEntry = z.infer<typeof observerEntrySchema>;
export type HookLimits = z.infer<typeof limitsSchema>;
