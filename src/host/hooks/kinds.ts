/** Every event kind a hook can receive, in the order a run produces them. */
export const hookEventKinds = ['session_started', 'step_started', 'before_tool_use', 'after_tool_use', 'step_finished', 'run_completed', 'run_failed'] as const;
export type HookEventKind = (typeof hookEventKinds)[number];

/** `before_tool_use` is answered by gates only; observers receive every other kind. */
export type ObservedKind = Exclude<HookEventKind, 'before_tool_use'>;
export const observedKinds: readonly ObservedKind[] = hookEventKinds.filter((kind): kind is ObservedKind => kind !== 'before_tool_use');
