/** `auto`: confine where a confinement backend works, else run unconfined and say so; `required`: refuse to run unconfined; `off`: never confine. */
export const sandboxModes = ['auto', 'required', 'off'] as const;
export type SandboxMode = (typeof sandboxModes)[number];

/** One line a person reads about an unconfined run (a `SandboxStatus` with `confined: false`): why, and how to fix it. */
export function describeUnconfined(status: { reason: string; fix?: string | undefined }): string {
  return `processes run unconfined: ${status.reason}${status.fix ? `; ${status.fix}` : ''}`;
}
