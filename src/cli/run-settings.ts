import path from 'node:path';
import type { SandboxMode } from '../host/confinement/modes.js';
import type { ExitCodeSource } from '../host/exit-codes.js';
import { parseHostLabels, type HostLabels } from '../host/hooks/labels.js';
import { parseAnswerFlags, type ScriptedAnswers } from '../ui/questioner/index.js';
import type { OutputMode, ReportFile } from '../ui/render/choose.js';
import { reportFormats, type ReportFlag } from '../ui/render/report-formats.js';
import { parseRunChoices, type RunChoices } from '../workflow/run-choices.js';
import { parseDurationFlag } from './duration-flag.js';
import type { LogsChoice } from './log-places.js';
import type { SandboxProbe } from './early-probe.js';
import { canPrompt, type CliEnvironment } from './environment.js';
import { resolveRunTarget } from './run-target.js';
import { parseSizeFlag } from './size-flag.js';

// Apart from the flags' definitions (run-flags.ts): commands import this when they run, so that
// --help and the commands that take no run settings never load zod.

/** What a run shows and records: the display, and the reports asked for. */
export interface ReportSettings {
  mode: OutputMode;
  /** The reports asked for (`--events FILE`, `--junit FILE`), each with its file. */
  files: readonly ReportFile[];
  /** `--output-limit`: most of each step's output the events carry; the default when undefined. */
  limitBytes: number | undefined;
}

/** The hook programs a run consults: the `--hooks` file (absolute) and the workflow's own `hooks:`. */
export interface HookSettings {
  file: string | undefined;
  /** `--label KEY=VALUE`, passed to hooks. */
  labels: HostLabels;
}

/**
 * Everything a command decides about one run, parsed once from its flags and rho's environment
 * and validated; the one value a run is assembled from (`assembleRun`). The workflow file
 * supplies the rest (`resolveHostConfig`).
 */
export interface RunSettings {
  /** The workflow file; undefined for a command that runs none (`invoke`, `tools` without -f). */
  file: string | undefined;
  choices: RunChoices;
  environment: CliEnvironment;
  /** Whether a person can be asked: a terminal, not CI, and not `--no-input`. */
  interactive: boolean;
  /** What the run's events are shown as and recorded in; undefined for a command that shows none. */
  reports: ReportSettings | undefined;
  logs: LogsChoice;
  /** `--timeout` of `run`: the whole run's wall limit. */
  timeoutMs: number | undefined;
  /** Undefined: no hook program runs (a plan consults hooks only when `--hooks` asks for them). */
  hooks: HookSettings | undefined;
  /** `--answer ID=VALUE` answers; `--answers FILE` is read when the run is assembled. */
  answers: ScriptedAnswers;
  answersFile: string | undefined;
  /** `--question-timeout`: fallback answers apply after this many seconds. */
  questionTimeoutSeconds: number | undefined;
  /** The sandbox probe the command started as soon as it parsed its flags (`startSandboxProbe`). */
  sandboxProbe: SandboxProbe | undefined;
}

/** The values of the flags that shape a run, as oclif parses them; each command has some of them. */
export interface RunFlagValues extends Partial<Record<ReportFlag, string | undefined>> {
  workspace?: string | undefined;
  'max-parallel'?: number | undefined;
  input?: string[];
  matrix?: string[];
  allow?: string[];
  ask?: string[];
  deny?: string[];
  approve?: string[];
  yes?: boolean;
  'no-input'?: boolean;
  sandbox?: string | undefined;
  hooks?: string | undefined;
  label?: string[];
  answer?: string[];
  answers?: string | undefined;
  'question-timeout'?: number | undefined;
  output?: string;
  'output-limit'?: string | undefined;
  logs?: string | undefined;
  'no-logs'?: boolean;
  timeout?: string | undefined;
  force?: boolean;
  'force-step'?: string[];
  'exit-code'?: string;
}

/** What the positional words of `run` and `plan` name: the file, the task and its arguments (`targetOf`). */
export interface RunTargetWords {
  file: string | undefined;
  task?: string | undefined;
  arguments?: readonly string[];
  /** How the command line names the task, for usage lines. */
  invocation?: string;
  /** What followed `--`. */
  passThrough?: readonly string[];
}

/**
 * What the positional words of `rho run` or `rho plan` name (`resolveRunTarget`), with what
 * followed `--`; a usage error when they name no workflow file.
 */
export async function runTargetOf(command: 'run' | 'plan', words: readonly string[], passThrough: readonly string[]): Promise<RunTargetWords & { file: string }> {
  const target = await resolveRunTarget(words, process.cwd());
  const invocation = ['rho', command, ...(target.named ? [target.file] : []), ...(target.task === undefined ? [] : [target.task])].join(' ');
  return { file: target.file, task: target.task, arguments: target.arguments, invocation, passThrough };
}

/** How a command runs: `run` shows and records events, `plan` consults hooks only when asked, `invoke` and `tools` show none. */
export type RunCommandKind = 'run' | 'plan' | 'invoke' | 'tools';

/**
 * The settings of one run from its command's flags, its target and rho's environment. A flag
 * that does not parse (`--timeout 5x`) is a usage error (`HostError`), before anything starts.
 */
export function runSettingsOf<Target extends RunTargetWords>(
  kind: RunCommandKind,
  flags: RunFlagValues,
  target: Target,
  environment: CliEnvironment,
  sandboxProbe?: SandboxProbe,
): RunSettings & { file: Target['file'] } {
  const approvals = kind !== 'plan';
  const choices = parseRunChoices({
    task: target.task,
    arguments: [...(target.arguments ?? [])],
    invocation: target.invocation,
    passThrough: [...(target.passThrough ?? [])],
    matrix: flags.matrix ?? [],
    workspace: flags.workspace,
    maxParallel: flags['max-parallel'],
    inputs: flags.input ?? [],
    rules: { allow: flags.allow ?? [], ask: flags.ask ?? [], deny: flags.deny ?? [] },
    approve: approvals ? (flags.approve ?? []) : [],
    yes: approvals && flags.yes === true,
    sandbox: flags.sandbox as SandboxMode | undefined,
    exitCode: flags['exit-code'] as ExitCodeSource | undefined,
    force: flags.force === true ? true : (flags['force-step'] ?? []).length > 0 ? flags['force-step']! : false,
  });
  // A path on the command line is relative to where rho was started, not to the workflow file.
  const hooksFile = flags.hooks === undefined ? undefined : path.resolve(flags.hooks);
  return {
    file: target.file,
    choices,
    environment,
    interactive: canPrompt(environment, flags['no-input'] === true),
    reports: kind === 'run' ? reportSettingsOf(flags) : undefined,
    logs: kind !== 'run' || flags['no-logs'] ? { mode: 'off' } : flags.logs !== undefined ? { mode: 'dir', dir: flags.logs } : { mode: 'default' },
    timeoutMs: kind === 'run' && flags.timeout !== undefined ? parseDurationFlag('--timeout', flags.timeout) : undefined,
    hooks: kind === 'plan' && hooksFile === undefined ? undefined : { file: hooksFile, labels: parseHostLabels(flags.label ?? []) },
    answers: parseAnswerFlags(flags.answer ?? []),
    answersFile: flags.answers,
    questionTimeoutSeconds: flags['question-timeout'],
    sandboxProbe,
  };
}

function reportSettingsOf(flags: RunFlagValues): ReportSettings {
  return {
    mode: (flags.output ?? 'auto') as OutputMode,
    files: reportFormats.flatMap((format) => {
      const file = flags[format.flag];
      return file === undefined ? [] : [{ format, file }];
    }),
    limitBytes: flags['output-limit'] === undefined ? undefined : parseSizeFlag('--output-limit', flags['output-limit']),
  };
}
