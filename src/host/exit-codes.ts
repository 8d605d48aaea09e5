import type { ErrorKind, RhoError } from './errors.js';

/** rho's exit codes (SPEC §1): the one table every command's outcome is mapped through. */
export const exitCodes = {
  success: 0,
  /** A step (or the one call of `rho invoke`) failed; also a fault of rho itself. */
  failure: 1,
  /** A usage error or an invalid workflow: nothing was executed. */
  usage: 2,
  /** Denied by the policy, a hook or an approval. */
  denied: 3,
  /** Every step succeeded, but an output could not be written while the run went on (a report, the events, a log, rho's own stdout): `EX_IOERR` of sysexits.h. */
  outputFailed: 74,
  /** `--timeout` expired. */
  timedOut: 124,
  /** Interrupted (SIGINT/SIGTERM) or cancelled. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];

/** Where a failed run's exit code comes from (`--exit-code`): rho's own (1), or the program that failed first (as `just` exits). */
export const exitCodeSources = ['rho', 'program'] as const;
export type ExitCodeSource = (typeof exitCodeSources)[number];

const byKind: Readonly<Record<ErrorKind, ExitCode>> = {
  usage: exitCodes.usage,
  invalid_workflow: exitCodes.usage,
  invalid_configuration: exitCodes.usage,
  invalid_tool: exitCodes.usage,
  invalid_hooks: exitCodes.usage,
  invalid_label: exitCodes.usage,
  invalid_event: exitCodes.usage,
  output_failed: exitCodes.outputFailed,
  invalid_arguments: exitCodes.usage,
  unknown_tool: exitCodes.usage,
  policy_denied: exitCodes.denied,
  hook_denied: exitCodes.denied,
  approval_denied: exitCodes.denied,
  cancelled: exitCodes.interrupted,
  interrupted: exitCodes.interrupted,
  timeout: exitCodes.failure,
  path_refused: exitCodes.failure,
  not_found: exitCodes.failure,
  conflict: exitCodes.failure,
  execution_failed: exitCodes.failure,
  unsupported: exitCodes.failure,
  internal: exitCodes.failure,
};

/**
 * The exit code when an error ends a command: before any step ran (`run`, `plan`, start-up), or
 * as the outcome of `rho invoke`'s one call, which is the whole command (so a bad argument there
 * is a usage error). A run's steps are counted by `exitCodeOfRun`.
 */
export function exitCodeOfError(error: Pick<RhoError, 'kind'>): ExitCode {
  return byKind[error.kind];
}

/** A run's exit code: stopped from outside, else the status of its first failure decides. */
export function exitCodeOfRun(outcome: { stopped: 'timeout' | 'interrupt' | undefined; firstFailure: 'failure' | 'denied' | undefined }): ExitCode {
  if (outcome.stopped) return outcome.stopped === 'timeout' ? exitCodes.timedOut : exitCodes.interrupted;
  if (outcome.firstFailure === undefined) return exitCodes.success;
  return outcome.firstFailure === 'denied' ? exitCodes.denied : exitCodes.failure;
}
