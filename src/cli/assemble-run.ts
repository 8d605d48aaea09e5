import type { Approver } from '../host/approval.js';
import type { GrantHints } from '../host/denials.js';
import type { RunEvent } from '../host/events.js';
import type { Questioner } from '../host/host-input.js';
import { RhoError } from '../host/errors.js';
import { exitCodeOfError, exitCodes } from '../host/exit-codes.js';
import type { SecretMasker } from '../host/masking.js';
import { interruptReason } from '../host/tool-host.js';
import { cliHooks } from '../hooks/run-hooks.js';
import { combineAnswers, loadAnswersFile, type ScriptedAnswers } from '../ui/questioner/index.js';
import { createOutputs } from '../ui/render/choose.js';
import type { GuardedStreams } from '../ui/render/guarded-sink.js';
import type { Renderer } from '../ui/render/renderer.js';
import { terminalFront, type RunAnswerers } from '../ui/terminal-front.js';
import type { RunPorts } from '../workflow/launch.js';
import { timeoutReason } from '../workflow/runner.js';
import { privateStoreOf, workflowParseCache } from './cache-places.js';
import { drainOf, type CliEnvironment, type RunStreams } from './environment.js';
import { guardedOutput } from './guarded-output.js';
import { abortOnSignals } from './interrupts.js';
import { openStepLogs } from './log-places.js';
import type { RunSettings } from './run-settings.js';
import { reportStartupError } from './startup-errors.js';

/** What the caller of a run holds beyond its settings: who stops it, and who admits the file it loads. */
export interface RunControl {
  /** Stops the run; without it, SIGINT and SIGTERM do (a second one forces the exit). */
  stop?: AbortSignal;
  /** Decides whether the loaded workflow may run (`RunPorts.admitWorkflow`). */
  admitWorkflow?: RunPorts['admitWorkflow'];
  /**
   * Who stands in for the person at the terminal (`rho mcp serve`'s client), given the run's
   * masking; without one, the terminal and the settings' reports do.
   */
  client?: (mask: (text: string) => string) => RunClient;
}

/** Who answers a run's approvals and questions, what its denials suggest, and where its events and lines go (masked). */
export interface RunClient {
  approver: Approver | undefined;
  questioner: Questioner | undefined;
  grantHints: GrantHints;
  events(event: RunEvent): void;
  lines(line: string): void;
}

/** A run as assembled from its settings: everything a command hands to the workflow, the host or the call. */
export interface AssembledRun {
  readonly settings: RunSettings;
  /** The run's secrets; every output below masks with it. */
  readonly masker: SecretMasker;
  /** stdout and stderr, masked and unable to act as a GitHub Actions command. */
  readonly streams: GuardedStreams;
  /** One line for the person running rho, on stderr. */
  warn(line: string): void;
  /** Aborted by `--timeout`, by the caller's stop or a signal, or by Ctrl-C at a prompt. */
  readonly signal: AbortSignal;
  /** Approvals, questions, hooks, output limits and logs, for the workflow's host. */
  readonly ports: RunPorts;
  /**
   * The one point every event passes on its way to every display and report: masked here, once.
   * With every byte of output asked for (`--output-limit none`), while stdout's reader is behind,
   * a promise that settles once it has caught up: the host holds the steps' output back meanwhile.
   */
  emit(event: RunEvent): Promise<void> | undefined;
}

/**
 * Assembles a run from its settings and hands it to `body`, which returns the exit code; then
 * stops listening for signals and closes the reports. An error of rho's thrown before the run
 * ends (a report that cannot be opened, an invalid workflow, a denied server start) is printed
 * and exits as the table of exit codes says; anything else is a bug, and is thrown on.
 */
export async function assembleRun(settings: RunSettings, rawStreams: RunStreams, control: RunControl, body: (run: AssembledRun) => Promise<number>): Promise<number> {
  const { environment } = settings;
  const output = guardedOutput(rawStreams, environment);
  const { masker, streams } = output;
  const client = control.client?.((text) => masker.mask(text));
  const warn = client ? (line: string) => client.lines(masker.mask(line)) : output.warn;
  // A log that could not be written is reported as it happens; a directory that could not be made was refused before the run.
  let logFailure: string | undefined;
  const openLogs = (workspaceRoot: string) =>
    openStepLogs(settings.logs, workspaceRoot, environment.env, (message) => {
      logFailure ??= message;
      warn(message);
    });
  let reports: Renderer | undefined;
  let answers: ScriptedAnswers;
  try {
    answers = combineAnswers(settings.answersFile === undefined ? new Map() : await loadAnswersFile(settings.answersFile), settings.answers);
    reports = settings.reports && (await createOutputs(settings.reports, terminalOf(environment), streams));
  } catch (error) {
    return reportStartupError(error, warn);
  }
  const controller = new AbortController();
  const timer = settings.timeoutMs === undefined ? undefined : setTimeout(() => controller.abort(timeoutReason), settings.timeoutMs);
  const stopListening = control.stop ? followStop(control.stop, controller) : abortOnSignals(controller, () => process.exit(exitCodes.interrupted));
  const keepsEveryByte = settings.reports?.limitBytes === Infinity;
  const emit = (event: RunEvent) => {
    const masked = masker.maskDeep(event);
    if (client) client.events(masked);
    else reports?.handle(masked);
    // Bounded output is held in full (at most the bound a step); unbounded output waits for stdout instead.
    return keepsEveryByte ? drainOf(rawStreams.stdout) : undefined;
  };
  const front: RunAnswerers =
    client ??
    terminalFront({
      interactive: settings.interactive,
      questionTimeoutSeconds: settings.questionTimeoutSeconds,
      reports,
      masker,
      answers,
      warn,
      emit,
      interrupt: () => controller.abort(interruptReason),
    });
  const ports: RunPorts = {
    hostEnv: environment.env,
    privateStore: privateStoreOf(environment.env),
    parseCache: workflowParseCache(environment.env),
    admitWorkflow: control.admitWorkflow,
    masker,
    probeSandbox: settings.sandboxProbe,
    approver: front.approver,
    onScriptedDecision: front.onScriptedDecision,
    questioner: front.questioner,
    scriptedAnswers: [...answers].map(([id, answer]) => ({ id, origin: answer.origin })),
    grantHints: front.grantHints,
    output: { limitBytes: settings.reports?.limitBytes, openLogs },
    hooks: settings.hooks && cliHooks({ ...settings.hooks, env: environment.env, masker, warn }),
    warn,
  };
  let exitCode: number | undefined;
  try {
    exitCode = await body({ settings, masker, streams, warn, signal: controller.signal, ports, emit });
  } catch (error) {
    exitCode = reportStartupError(error, warn);
  } finally {
    clearTimeout(timer);
    stopListening();
    // A bug is on its way out: what the reports hold so far is still written.
    if (exitCode === undefined) await reports?.close().catch(() => undefined);
  }
  try {
    await reports?.close();
  } catch (error) {
    // A report lost while the run went on (the disk filled up) fails a run that had passed, as what it is.
    warn(`rho: ${(error as Error).message}`);
    if (exitCode === exitCodes.success) exitCode = error instanceof RhoError ? exitCodeOfError(error) : exitCodes.failure;
  }
  if (logFailure !== undefined && settings.logs.mode === 'dir' && exitCode === exitCodes.success) exitCode = exitCodes.outputFailed;
  return exitCode;
}

function terminalOf(environment: CliEnvironment) {
  return { isTTY: environment.stdoutIsTTY, ci: environment.ci, githubActions: environment.githubActions, stepSummaryFile: environment.stepSummaryFile };
}

function followStop(stop: AbortSignal, controller: AbortController): () => void {
  const abort = () => controller.abort(stop.reason);
  if (stop.aborted) abort();
  stop.addEventListener('abort', abort, { once: true });
  return () => stop.removeEventListener('abort', abort);
}
