import { z } from 'zod';

/** Every event kind a hook can receive, in the order a run produces them. */
export const hookEventKinds = ['session_started', 'step_started', 'before_tool_use', 'after_tool_use', 'step_finished', 'run_completed', 'run_failed'] as const;

export const hookEventKindSchema = z.enum(hookEventKinds);
export type HookEventKind = z.infer<typeof hookEventKindSchema>;

/** `before_tool_use` is answered by gates only; observers receive every other kind. */
export const observedKindSchema = hookEventKindSchema.exclude(['before_tool_use']);
export type ObservedKind = z.infer<typeof observedKindSchema>;
export const observedKinds: readonly ObservedKind[] = observedKindSchema.options;
