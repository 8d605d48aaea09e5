import { launchWorkflow } from '../workflow/launch.js';
import { assembleRun, type RunControl } from './assemble-run.js';
import type { RunStreams } from './environment.js';
import type { RunSettings } from './run-settings.js';

/**
 * `rho run`: runs the settings' workflow and returns the exit code of SPEC §1. Without
 * `control.stop`, SIGINT and SIGTERM stop the run; with it, the caller owns the signals.
 */
export function runWorkflowCommand(settings: RunSettings & { file: string }, streams: RunStreams, control: RunControl = {}): Promise<number> {
  return assembleRun(settings, streams, control, async (run) => {
    const summary = await launchWorkflow({ file: settings.file, cwd: process.cwd(), choices: settings.choices, ports: run.ports, signal: run.signal, emit: run.emit });
    return summary.exitCode;
  });
}
