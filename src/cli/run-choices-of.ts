import type { SandboxMode } from '../host/confinement/modes.js';
import type { ExitCodeSource } from '../host/exit-codes.js';
import { parseRunChoices, type RunChoices } from '../workflow/run-choices.js';
import type { PlanRequest } from './plan-workflow.js';
import type { RunStreams } from './run-workflow.js';
import { resolveRunTarget } from './run-target.js';

// Apart from the flags' definitions (run-flags.ts): commands import this when they run, so that
// --help and the commands that take no run choices never load zod.

/** The values of the flags that shape a run, as oclif parses them (`rho plan` has no approvals). */
export interface ChoiceFlagValues {
  /** The task positional of `run` and `plan`. */
  task?: string | undefined;
  /** The words after the task. */
  arguments?: string[];
  /** How the command line names the task, for usage lines. */
  invocation?: string;
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
    arguments: flags.arguments ?? [],
    ...(flags.invocation !== undefined && { invocation: flags.invocation }),
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

/**
 * What the positional words of `rho run` or `rho plan` name (`resolveRunTarget`): the file, and
 * the task and its arguments as run choices; undefined, after saying why on stderr, when they
 * name nothing (exit 2).
 */
export async function targetOf(
  command: 'run' | 'plan',
  words: readonly string[],
  streams: RunStreams,
): Promise<{ file: string; choices: Pick<ChoiceFlagValues, 'task' | 'arguments' | 'invocation'> } | undefined> {
  try {
    const target = await resolveRunTarget(words, process.cwd());
    const invocation = ['rho', command, ...(target.named ? [target.file] : []), ...(target.task === undefined ? [] : [target.task])].join(' ');
    return { file: target.file, choices: { ...(target.task !== undefined && { task: target.task }), arguments: target.arguments, invocation } };
  } catch (error) {
    streams.stderr.write(`rho: ${(error as Error).message}\n`);
    return undefined;
  }
}
