import { z } from 'zod';

/** Whether envelopes come from a root run or from work another run (or a calling workflow step) delegated: the seeds' delegation identity. */
export const delegationSchema = z
  .discriminatedUnion('role', [
    z.strictObject({ role: z.literal('root') }),
    z.strictObject({
      role: z.literal('child'),
      parent: z
        .string()
        .describe(
          'Who delegated: for a call inside a nested group (a workflow step with uses:), the path id of the step that runs the group (`release`, `test (node=20)`, `release/build` for a group inside a group), in the same run; for a run an embedder delegated, the run_id of the run that delegated it',
        ),
      task: z
        .string()
        .optional()
        .describe('For a call inside a nested group: the task the group runs, `TASK` of the run’s file or `FILE#TASK` (FILE as the run names it) of another'),
    }),
  ])
  .meta({ id: 'Delegation' });
export type Delegation = z.infer<typeof delegationSchema>;
