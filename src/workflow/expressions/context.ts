/** Whether the run so far has failed or been cancelled: what the status functions read. */
export interface RunStatus {
  failed: boolean;
  cancelled: boolean;
}

/** The contexts every workflow has. */
export const coreContextNames = ['inputs', 'steps', 'env', 'secrets'] as const;

/** Everything an expression can read. `env` is the workflow's `env:` only, never the host's. */
export interface ExpressionContext {
  inputs: Record<string, unknown>;
  steps: Record<string, { status: string; output: string; data: unknown }>;
  env: Record<string, string>;
  secrets: Record<string, string>;
  /**
   * Further contexts by name (`rho`, the run's context; `matrix`, a cell's values). A name here is readable only in templates
   * parsed with it among `ParseOptions.contexts`.
   */
  extra?: Readonly<Record<string, unknown>>;
  run: RunStatus;
}
