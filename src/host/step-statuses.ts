/**
 * How a step ended. A call ends in one of these but `skipped` (its `if:` or an earlier failure)
 * and `up_to_date` (nothing it depends on changed), which only a run decides. A module of its
 * own so that a run counts statuses without building the event schemas (src/host/events.ts).
 */
export const stepStatuses = ['success', 'failure', 'denied', 'skipped', 'up_to_date', 'cancelled', 'interrupted'] as const;
