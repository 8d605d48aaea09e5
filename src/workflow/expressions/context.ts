/** Whether the run so far has failed or been cancelled: what the status functions read. */
export interface RunStatus {
  failed: boolean;
  cancelled: boolean;
}

/** Everything an expression can read. `env` is the workflow's `env:` only, never the host's. */
export interface ExpressionContext {
  inputs: Record<string, unknown>;
  steps: Record<string, { status: string; output: string; data: unknown }>;
  env: Record<string, string>;
  secrets: Record<string, string>;
  run: RunStatus;
}
