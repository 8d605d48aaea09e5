import { z } from 'zod';
import { builtOnce } from '../built-once.js';
import { sandboxModes } from './modes.js';

// The modes and the one-line description need no zod: the command line's flags use them on every start.
export { describeUnconfined, sandboxModes, type SandboxMode } from './modes.js';

/**
 * Whether this run's processes are confined, decided once per run by a probe that really starts
 * the sandbox. Unconfined runs carry why and, where there is one, the exact fix. Built on first
 * use: only the events' schema holds it.
 */
export const sandboxStatusSchema = builtOnce(() =>
  z.discriminatedUnion('confined', [
    z.strictObject({
      confined: z.literal(true),
      mode: z.enum(sandboxModes),
      backend: z
        .string()
        .regex(/^[a-z][a-z0-9-]*$/)
        .describe('Name of the confinement backend that confines each process'),
      location: z.string().optional().describe("Absolute path of the backend's program, for a backend that runs one"),
    }),
    z.strictObject({
      confined: z.literal(false),
      mode: z.enum(sandboxModes),
      reason: z.string().describe('Why processes run unconfined'),
      fix: z.string().optional().describe('What to install or set so they are confined'),
    }),
  ]),
);

export type SandboxStatus = z.infer<ReturnType<typeof sandboxStatusSchema>>;
