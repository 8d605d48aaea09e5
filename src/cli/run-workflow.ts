import path from 'node:path';
import { SecretMasker } from '../host/masking.js';
import { parseDurationFlag } from './duration-flag.js';
import { launchWorkflow, type RunPorts } from '../workflow/launch.js';
import { timeoutReason } from '../workflow/runner.js';
import { interruptReason } from '../host/tool-host.js';
import { createApprovals } from '../ui/approver/index.js';
import { combineAnswers, createQuestioner, loadAnswersFile, parseAnswerFlags, type ScriptedAnswers } from '../ui/questioner/index.js';
import { createOutputs, type OutputMode } from '../ui/render/choose.js';
import { guardStreams } from '../ui/render/guarded-sink.js';
import type { Renderer } from '../ui/render/renderer.js';
import { canPrompt, type CliEnvironment } from './environment.js';
import { abortOnSignals } from './interrupts.js';
import { reportStartupError } from './startup-errors.js';
import { cliGrantHints } from '../ui/grant-hints.js';
import type { RunChoices } from '../workflow/run-choices.js';
import { cliHooks } from '../hooks/run-hooks.js';
import type { SandboxProbe } from './early-probe.js';
import { privateStoreOf } from './cache-places.js';

/** `rho run` as asked for: the file, the run's choices (parsed once from the flags), and how to show and record it. */
export interface RunRequest {
  file: string;
  choices: RunChoices;
  /** `--no-input`: never prompt. */
  noInput: boolean;
  output: OutputMode;
  eventsFile?: string;
  junitFile?: string;
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
  const guarded = guardStreams(streams, masker, environment.githubActions);
  const stderr = guarded.stderr;
  let limitMs: number | undefined;
  let outputs: Renderer;
  let answers: ScriptedAnswers;
  try {
    limitMs = request.timeout === undefined ? undefined : parseDurationFlag('--timeout', request.timeout);
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
    // A report lost after the run (the disk filled up) fails a run that had passed.
    warn(`rho: ${(error as Error).message}`);
    if (exitCode === 0) exitCode = 1;
  }
  return exitCode;
}

function followStop(stop: AbortSignal, controller: AbortController): () => void {
  const abort = () => controller.abort(stop.reason);
  if (stop.aborted) abort();
  stop.addEventListener('abort', abort, { once: true });
  return () => stop.removeEventListener('abort', abort);
}
