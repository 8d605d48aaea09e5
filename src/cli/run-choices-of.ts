import type { SandboxMode } from '../host/confinement/modes.js';
import type { ExitCodeSource } from '../host/exit-codes.js';
import { parseRunChoices, type RunChoices } from '../workflow/run-choices.js';
import type { PlanRequest } from './plan-workflow.js';

// Apart from the flags' definitions (run-flags.ts): commands import this when they run, so that
// --help and the commands that take no run choices never load zod.

/** The values of the flags that shape a run, as oclif parses them (`rho plan` has no approvals). */
export interface ChoiceFlagValues {
  /** The task positional of `run` and `plan`. */
  task?: string | undefined;
  /** What followed `--`. */
  passThrough?: string[];
  matrix?: string[];
  workspace?: string | undefined;
  'max-parallel'?: number | undefined;
  input?: string[];
  allow: string[];
  ask: string[];
  deny: string[];
  approve?: string[];
  yes?: boolean;
  sandbox?: string | undefined;
  hooks?: string | undefined;
  force?: boolean;
  'force-step'?: string[];
  'exit-code'?: string;
}

/** The run's choices from its flags, parsed once. */
export function runChoicesOf(flags: ChoiceFlagValues): RunChoices {
  return parseRunChoices({
    ...(flags.task !== undefined && { task: flags.task }),
    passThrough: flags.passThrough ?? [],
    matrix: flags.matrix ?? [],
    ...(flags.workspace !== undefined && { workspace: flags.workspace }),
    ...(flags['max-parallel'] !== undefined && { maxParallel: flags['max-parallel'] }),
    inputs: flags.input ?? [],
    rules: { allow: flags.allow, ask: flags.ask, deny: flags.deny },
    approve: flags.approve ?? [],
    yes: flags.yes ?? false,
    ...(flags.sandbox !== undefined && { sandbox: flags.sandbox as SandboxMode }),
    ...(flags['exit-code'] !== undefined && { exitCode: flags['exit-code'] as ExitCodeSource }),
    force: flags.force === true ? true : (flags['force-step'] ?? []).length > 0 ? flags['force-step']! : false,
  });
}

/** What `rho plan` and `rho run --dry-run` plan, from their flags. */
export function planRequestOf(file: string, flags: ChoiceFlagValues): PlanRequest {
  return { file, choices: runChoicesOf({ ...flags, approve: [], yes: false }), ...(flags.hooks !== undefined && { hooksFile: flags.hooks }) };
}
