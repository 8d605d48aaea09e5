import { HostError } from '../host/errors.js';
import { exitCodeOfError, exitCodes } from '../host/exit-codes.js';
import type { ToolResult } from '../host/tool.js';
import { openToolHost } from '../workflow/launch.js';
import { assembleRun } from './assemble-run.js';
import { parseDurationFlag } from './duration-flag.js';
import type { RunStreams } from './environment.js';
import type { RunSettings } from './run-settings.js';

/** The one call of `rho invoke`, as typed. */
export interface InvokeRequest {
  tool: string;
  /** `--args JSON` as typed. */
  args: string;
  /** `--timeout DURATION` as typed (`90s`, `5m`): the call's own limit. */
  timeout: string | undefined;
}

/** The exit code of one call: the command's whole outcome, from the one table of exit codes. */
export function invokeExitCode(result: ToolResult): number {
  if (result.status === 'success') return exitCodes.success;
  if (result.status === 'interrupted' || result.status === 'cancelled') return exitCodes.interrupted;
  return exitCodeOfError(result.error);
}

/** How many of a failed process's last stderr lines `invoke` shows: nothing showed them as they came. */
const stderrTailLines = 5;

/** The last lines a failed call's process wrote to stderr, when it ran one. */
function stderrTail(result: ToolResult): string[] {
  const stderr = result.error?.details['stderr'];
  if (typeof stderr !== 'string' || stderr.trim() === '') return [];
  return [
    'its last stderr lines:',
    ...stderr
      .trimEnd()
      .split(/\r\n|\r|\n/)
      .slice(-stderrTailLines)
      .map((line) => `  ${line}`),
  ];
}

function parseArgsJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HostError('usage', `--args is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

/** One call through `ToolHost.invoke` with the same policy, approval and hook paths as `rho run`. */
export async function invokeToolCommand(request: InvokeRequest, settings: RunSettings, streams: RunStreams): Promise<{ exitCode: number; result?: ToolResult }> {
  let result: ToolResult | undefined;
  const exitCode = await assembleRun(settings, streams, {}, async (run) => {
    const args = parseArgsJson(request.args);
    const timeoutMs = request.timeout === undefined ? undefined : parseDurationFlag('--timeout', request.timeout);
    const { host, hooks } = await openToolHost({ cwd: process.cwd(), choices: settings.choices, ports: run.ports });
    try {
      const called = await host.invoke({ id: 'invoke-1', tool: request.tool, args, timeoutMs }, run.signal);
      result = called;
      if (called.status === 'success') run.streams.stdout.write(`${called.output?.text ?? ''}\n`);
      else for (const line of [`rho: ${request.tool} ${called.status}: ${called.error?.message ?? ''}`, ...stderrTail(called)]) run.warn(line);
      return invokeExitCode(called);
    } finally {
      for (const notice of await host.dispose()) run.warn(`rho: ${notice}`);
      await hooks?.finish();
    }
  });
  return { exitCode, result };
}
