import { HostError } from '../../host/errors.js';
import { parseDuration } from '../../workflow/duration.js';
import { launchWorkflow } from '../../workflow/launch.js';
import { InvalidWorkflowError, formatProblem } from '../../workflow/problems.js';
import { timeoutReason } from '../../workflow/runner.js';
import { createRenderer, resolveOutputMode, type OutputMode } from '../render/choose.js';
import type { CliEnvironment } from './environment.js';
import { abortOnSignals } from './interrupts.js';

export interface RunRequest {
  file: string;
  workspace?: string;
  maxParallel?: number;
  inputs: readonly string[];
  allow: readonly string[];
  ask: readonly string[];
  deny: readonly string[];
  approve: readonly string[];
  yes: boolean;
  noInput: boolean;
  output: OutputMode;
  timeout?: string;
}

export interface RunStreams {
  stdout: { write(text: string): void };
  stderr: { write(text: string): void };
}

/** Runs a workflow for the CLI and returns the exit code of SPEC §1. */
export async function runWorkflowCommand(request: RunRequest, environment: CliEnvironment, streams: RunStreams): Promise<number> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  if (request.timeout !== undefined) {
    let limitMs: number;
    try {
      limitMs = parseDuration(request.timeout);
    } catch (error) {
      streams.stderr.write(`rho: --timeout: ${(error as Error).message}\n`);
      return 2;
    }
    timer = setTimeout(() => controller.abort(timeoutReason), limitMs);
  }
  const stopListening = abortOnSignals(controller, () => process.exit(130));
  const mode = resolveOutputMode(request.output, { isTTY: environment.stdoutIsTTY, ci: environment.ci });
  const renderer = await createRenderer(mode, streams.stdout);
  try {
    const summary = await launchWorkflow({
      file: request.file,
      cwd: process.cwd(),
      ...(request.workspace !== undefined && { workspace: request.workspace }),
      ...(request.maxParallel !== undefined && { maxParallel: request.maxParallel }),
      inputs: request.inputs,
      rules: { allow: request.allow, ask: request.ask, deny: request.deny },
      approve: request.approve,
      yes: request.yes,
      hostEnv: environment.env,
      signal: controller.signal,
      emit: (event) => renderer.handle(event),
    });
    await renderer.close();
    return summary.exitCode;
  } catch (error) {
    await renderer.close();
    if (error instanceof InvalidWorkflowError) {
      for (const problem of error.problems) streams.stderr.write(`${formatProblem(problem)}\n`);
      return 2;
    }
    if (error instanceof HostError) {
      streams.stderr.write(`rho: ${error.message}\n`);
      return 2;
    }
    throw error;
  } finally {
    clearTimeout(timer);
    stopListening();
  }
}
