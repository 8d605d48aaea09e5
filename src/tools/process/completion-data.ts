import { z } from 'zod';

/** The step data of a process that ran to completion: what `exec` and `shell` return. */
export const completionData = () =>
  z.object({
    exit_code: z.number().int().nullable().describe('null when a signal ended it'),
    stdout: z.string().describe('bounded by max_output_bytes'),
    stderr: z.string(),
    truncated: z.boolean(),
    timed_out: z.boolean(),
  });
