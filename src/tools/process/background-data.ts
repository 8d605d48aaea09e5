import { z } from 'zod';

/** The fields of a background process's state in the step data of `process_output` and `process_stop` (`processStatus`). */
export const backgroundStatusData = () => ({
  process_id: z.string(),
  state: z.enum(['running', 'exited', 'stopped', 'timed_out']),
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
});
