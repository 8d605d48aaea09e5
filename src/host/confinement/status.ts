import { z } from 'zod';

/** `auto`: confine where bubblewrap works, else run unconfined and say so; `required`: refuse to run unconfined; `off`: never confine. */
export const sandboxModes = ['auto', 'required', 'off'] as const;
export type SandboxMode = (typeof sandboxModes)[number];

/**
 * Whether this run's processes are confined, decided once per run by a probe that really starts
 * the sandbox. Unconfined runs carry why and, where there is one, the exact fix.
 */
export const sandboxStatusSchema = z.discriminatedUnion('confined', [
  z.strictObject({
    confined: z.literal(true),
    mode: z.enum(sandboxModes),
    program: z.string().describe('Absolute path of the bubblewrap program that confines each process'),
  }),
  z.strictObject({
    confined: z.literal(false),
    mode: z.enum(sandboxModes),
    reason: z.string().describe('Why processes run unconfined'),
    fix: z.string().optional().describe('What to install or set so they are confined'),
  }),
]);

export type SandboxStatus = z.infer<typeof sandboxStatusSchema>;

/** One line a person reads about an unconfined run: why, and how to fix it. */
export function describeUnconfined(status: Extract<SandboxStatus, { confined: false }>): string {
  return `processes run unconfined: ${status.reason}${status.fix ? `; ${status.fix}` : ''}`;
}
