import path from 'node:path';
import { SecretMasker } from '../host/masking.js';
import { parseDurationFlag } from './duration-flag.js';
import { parseSizeFlag } from './size-flag.js';
import { defaultLogPlace } from './log-places.js';
import { exitCodeOfError, exitCodes } from '../host/exit-codes.js';
import { HostError } from '../host/errors.js';
import type { OutputLogs } from '../host/step-output.js';
import { launchWorkflow, type RunPorts } from '../workflow/launch.js';
import { timeoutReason } from '../workflow/runner.js';
import { interruptReason } from '../host/tool-host.js';
import { createApprovals } from '../ui/approver/index.js';
import { combineAnswers, createQuestioner, loadAnswersFile, parseAnswerFlags, type ScriptedAnswers } from '../ui/questioner/index.js';
import { createOutputs, type OutputMode } from '../ui/render/choose.js';
import { guardStreams } from '../ui/render/guarded-sink.js';
import type { Renderer } from '../ui/render/renderer.js';
import { canPrompt, streamTargets, type CliEnvironment } from './environment.js';
import { abortOnSignals } from './interrupts.js';
import { reportStartupError } from './startup-errors.js';
import { cliGrantHints } from '../ui/grant-hints.js';
import type { RunChoices } from '../workflow/run-choices.js';
import { cliHooks } from '../hooks/run-hooks.js';
import type { SandboxProbe } from './early-probe.js';
import { privateStoreOf } from './cache-places.js';

/** Where a run keeps its steps' whole output: the default place for its workspace, a directory given, or nowhere. */
export type LogsChoice = { mode: 'default' } | { mode: 'dir'; dir: string } | { mode: 'off' };

/** How many runs' logs the default place keeps for a workspace; the oldest go first. */
export const keptRuns = 20;
/** How long the default place keeps the logs of a workspace no run has written to since. */
export const keptWorkspaceMs = 30 * 24 * 3600 * 1000;

/** `rho run` as asked for: the file, the run's choices (parsed once from the flags), and how to show and record it. */
export interface RunRequest {
  file: string;
  choices: RunChoices;
  /** `--no-input`: never prompt. */
  noInput: boolean;
  output: OutputMode;
  eventsFile?: string;
  junitFile?: string;
  /** `--output-limit SIZE` as typed. */
  outputLimit?: string;
  logs: LogsChoice;
  timeout?: string;
  hooksFile?: string;
  labels: readonly string[];
  answer: readonly string[];
  answersFile?: string;
  questionTimeout?: number;
  /** The sandbox probe, when the command started it early (`startSandboxProbe`). */
  probeSandbox?: SandboxProbe;
  /** Decides whether the loaded workflow may run (`RunPorts.admitWorkflow`). */
  admitWorkflow?: RunPorts['admitWorkflow'];
}

export interface RunStreams {
  stdout: { write(text: string): void };
  stderr: { write(text: string): void };
}

/**
 * Runs a workflow for the CLI and returns the exit code of SPEC §1. Without `stop`, SIGINT and
 * SIGTERM stop the run; with it, the caller owns the signals and stops the run through it.
 */
export async function runWorkflowCommand(request: RunRequest, environment: CliEnvironment, streams: RunStreams, stop?: AbortSignal): Promise<number> {
  const masker = new SecretMasker();
  // Everything below writes through these: masked, and unable to act as a GitHub Actions command.
  const guarded = guardStreams(streams, masker, streamTargets(environment));
  const stderr = guarded.stderr;
  let limitMs: number | undefined;
  let outputLimitBytes: number | undefined;
  let outputs: Renderer;
  let answers: ScriptedAnswers;
  try {
    limitMs = request.timeout === undefined ? undefined : parseDurationFlag('--timeout', request.timeout);
    outputLimitBytes = request.outputLimit === undefined ? undefined : parseSizeFlag('--output-limit', request.outputLimit);
    const fromFile = request.answersFile === undefined ? new Map() : await loadAnswersFile(request.answersFile);
    answers = combineAnswers(fromFile, parseAnswerFlags(request.answer));
    outputs = await createOutputs(
      { mode: request.output, ...(request.eventsFile && { eventsFile: request.eventsFile }), ...(request.junitFile && { junitFile: request.junitFile }) },
      { isTTY: environment.stdoutIsTTY, ci: environment.ci, githubActions: environment.githubActions, stepSummaryFile: environment.stepSummaryFile },
      guarded,
      masker,
    );
  } catch (error) {
    stderr.write(`rho: ${(error as Error).message}\n`);
    return 2;
  }
  const controller = new AbortController();
  const timer = limitMs === undefined ? undefined : setTimeout(() => controller.abort(timeoutReason), limitMs);
  const stopListening = stop ? followStop(stop, controller) : abortOnSignals(controller, () => process.exit(130));
  const approvals = createApprovals({
    interactive: canPrompt(environment, request.noInput),
    ...(outputs.promptTerminal && { terminal: outputs.promptTerminal }),
    onInterrupt: () => controller.abort(interruptReason),
    echo: (stepId, line) => outputs.handle({ type: 'step_progress', stepId: stepId ?? '', message: line }),
    mask: (text) => masker.mask(text),
  });
  const questioner = createQuestioner({
    interactive: canPrompt(environment, request.noInput),
    answers,
    ...(request.questionTimeout !== undefined && { timeoutSeconds: request.questionTimeout }),
    report: (line) => stderr.write(`${line}\n`),
    onSecret: (value) => masker.add(value),
    ...(outputs.promptTerminal && { terminal: outputs.promptTerminal }),
    onInterrupt: () => controller.abort(interruptReason),
    mask: (text) => masker.mask(text),
  });
  const warn = (line: string) => stderr.write(`${line}\n`);
  // A log that could not be written is reported as it happens; a directory that could not be made was refused before the run.
  let logFailure: string | undefined;
  const openLogs = (workspaceRoot: string) =>
    openStepLogs(request.logs, workspaceRoot, environment.env, (message) => {
      logFailure ??= message;
      warn(message);
    });
  const privateStore = privateStoreOf(environment.env);
  let exitCode: number;
  try {
    const summary = await launchWorkflow({
      file: request.file,
      cwd: process.cwd(),
      choices: request.choices,
      ports: {
        hostEnv: environment.env,
        ...(privateStore && { privateStore }),
        ...(request.admitWorkflow && { admitWorkflow: request.admitWorkflow }),
        masker,
        ...(request.probeSandbox && { probeSandbox: request.probeSandbox }),
        ...(approvals.approver && { approver: approvals.approver }),
        onScriptedDecision: approvals.onScriptedDecision,
        questioner,
        scriptedAnswers: [...answers].map(([id, answer]) => ({ id, origin: answer.origin })),
        grantHints: cliGrantHints,
        output: { ...(outputLimitBytes !== undefined && { limitBytes: outputLimitBytes }), openLogs },
        // A path on the command line is relative to where rho was started, not to the workflow file.
        hooks: cliHooks({ file: request.hooksFile === undefined ? undefined : path.resolve(request.hooksFile), labels: request.labels, env: environment.env, masker, warn }),
        warn,
      },
      signal: controller.signal,
      emit: (event) => outputs.handle(event),
    });
    exitCode = summary.exitCode;
  } catch (error) {
    exitCode = reportStartupError(error, warn);
  } finally {
    clearTimeout(timer);
    stopListening();
  }
  try {
    await outputs.close();
  } catch (error) {
    // A report lost while the run went on (the disk filled up) fails a run that had passed, as what it is.
    warn(`rho: ${(error as Error).message}`);
    if (exitCode === exitCodes.success) exitCode = error instanceof HostError ? exitCodeOfError(error) : exitCodes.failure;
  }
  if (logFailure !== undefined && request.logs.mode === 'dir' && exitCode === exitCodes.success) exitCode = exitCodes.outputFailed;
  return exitCode;
}

/**
 * The run's step logs: under `--logs DIR` (which must be writable: a usage error before anything
 * runs), or in the workspace's default place (which, when it cannot be made, only costs a
 * warning: nobody asked for it), or none.
 */
export async function openStepLogs(choice: LogsChoice, workspaceRoot: string, env: CliEnvironment['env'], onFailure: (message: string) => void): Promise<OutputLogs | undefined> {
  if (choice.mode === 'off') return undefined;
  const { StepLogFiles, removeStaleLogPlaces } = await import('../ui/reports/step-logs.js');
  if (choice.mode === 'dir') return StepLogFiles.create(path.resolve(choice.dir), { onFailure });
  const place = defaultLogPlace(env, workspaceRoot);
  if (place === undefined) return undefined;
  try {
    const logs = await StepLogFiles.create(place, { keepRuns: keptRuns, onFailure });
    await removeStaleLogPlaces(path.dirname(place), keptWorkspaceMs);
    return logs;
  } catch (error) {
    onFailure(`rho: ${(error as Error).message}`);
    return undefined;
  }
}

function followStop(stop: AbortSignal, controller: AbortController): () => void {
  const abort = () => controller.abort(stop.reason);
  if (stop.aborted) abort();
  stop.addEventListener('abort', abort, { once: true });
  return () => stop.removeEventListener('abort', abort);
}
