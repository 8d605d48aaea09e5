/** Whether the run so far has failed or been cancelled: what the status functions read. */
export interface RunStatus {
  failed: boolean;
  cancelled: boolean;
}

/**
 * Everything an expression can read. `env` is the workflow's `env:` (and the host variables it
 * names in `host_env:`), never the rest of the host's. `rho` is the run's context (workspace,
 * directories, OS, CI, task); absent where no run is under way, and then it reads as null.
 */
export interface ExpressionContext {
  inputs: Record<string, unknown>;
  steps: Record<string, { status: string; output: string; data: unknown }>;
  env: Record<string, string>;
  secrets: Record<string, string>;
  rho?: Readonly<Record<string, unknown>>;
  /** A matrix cell's values; absent outside a matrix step. */
  matrix?: Readonly<Record<string, unknown>>;
  run: RunStatus;
}
