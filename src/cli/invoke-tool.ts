import path from 'node:path';
import { HostError } from '../host/errors.js';
import { exitCodeOfError, exitCodes } from '../host/exit-codes.js';
import { parseDurationFlag } from './duration-flag.js';
import { reportStartupError } from './startup-errors.js';
import { SecretMasker } from '../host/masking.js';
import type { ToolResult } from '../host/tool.js';
import { interruptReason } from '../host/tool-host.js';
import { loadHooks } from '../hooks/load-hooks.js';
import { buildHost } from '../workflow/build-host.js';
import { builtinRegistry } from '../workflow/builtin-registry.js';
import { standaloneHookSandbox } from '../workflow/launch.js';
import { runningUserHome } from '../workflow/user-home.js';
import { privateStoreOf } from './cache-places.js';
import { createApprovals } from '../ui/approver/index.js';
import { createQuestioner } from '../ui/questioner/index.js';
import { guardStreams } from '../ui/render/guarded-sink.js';
import { canPrompt, streamTargets, type CliEnvironment } from './environment.js';
import { abortOnSignals } from './interrupts.js';
import type { RunStreams } from './run-workflow.js';
import type { RunChoices } from '../workflow/run-choices.js';
import { cliGrantHints } from '../ui/grant-hints.js';

export interface InvokeRequest {
  tool: string;
  /** Workspace, rules and scripted approvals, parsed once from the flags. */
  choices: RunChoices;
  noInput: boolean;
  /** `--args JSON` as typed. */
  args: string;
  hooksFile?: string;
  /** `--timeout DURATION` as typed (`90s`, `5m`). */
  timeout?: string;
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
export async function invokeToolCommand(request: InvokeRequest, environment: CliEnvironment, streams: RunStreams): Promise<{ exitCode: number; result?: ToolResult }> {
  const masker = new SecretMasker();
  const guarded = guardStreams(streams, masker, streamTargets(environment));
  const stderr = (line: string) => guarded.stderr.write(`${line}\n`);
  const controller = new AbortController();
  const stopListening = abortOnSignals(controller, () => process.exit(130));
  const interactive = canPrompt(environment, request.noInput);
  try {
    const args = parseArgsJson(request.args);
    const timeoutMs = request.timeout === undefined ? undefined : parseDurationFlag('--timeout', request.timeout);
    const cwd = process.cwd();
    const root = path.resolve(cwd, request.choices.workspace ?? '.');
    const privatePaths = privateStoreOf(environment.env)?.paths ?? [];
    const sandbox = await standaloneHookSandbox(environment.env, privatePaths, request.choices.sandbox, [root]);
    const hooks = request.hooksFile
      ? await loadHooks({ file: request.hooksFile, cwd, env: environment.env, labels: {}, runId: `invoke-${Date.now()}`, onWarning: stderr, sandbox })
      : undefined;
    const approvals = createApprovals({
      interactive,
      onInterrupt: () => controller.abort(interruptReason),
      echo: (_stepId, line) => stderr(line),
      mask: (text) => masker.mask(text),
    });
    const { choices } = request;
    const host = await buildHost(
      {
        root,
        grantedRoots: [],
        rules: choices.rules,
        approve: choices.approve,
        yes: choices.yes,
        secretNames: [],
        envGrants: { policy: [], declared: [] },
        processEnv: { mode: 'inherit' },
        processVariables: {},
        maxParallel: 1,
        sandbox: sandbox.status,
        homeDirectories: sandbox.homeDirectories,
        home: runningUserHome(environment.env),
        privatePaths,
      },
      {
        hostEnv: environment.env,
        onScriptedDecision: approvals.onScriptedDecision,
        ...(approvals.approver && { approver: approvals.approver }),
        questioner: createQuestioner({ interactive, answers: new Map(), report: stderr, onInterrupt: () => controller.abort(interruptReason) }),
        ...(hooks && { gates: hooks.gates }),
        grantHints: cliGrantHints,
        redact: (text) => masker.mask(text),
        masker,
      },
      builtinRegistry(),
    );
    try {
      const result = await host.invoke({ id: `invoke-1`, tool: request.tool, args, ...(timeoutMs !== undefined && { timeoutMs }) }, controller.signal);
      if (result.status === 'success') guarded.stdout.write(`${result.output?.text ?? ''}\n`);
      else for (const line of [`rho: ${request.tool} ${result.status}: ${result.error?.message ?? ''}`, ...stderrTail(result)]) stderr(line);
      return { exitCode: invokeExitCode(result), result };
    } finally {
      for (const notice of await host.dispose()) stderr(`rho: ${notice}`);
      await hooks?.finish();
    }
  } catch (error) {
    return { exitCode: reportStartupError(error, stderr) };
  } finally {
    stopListening();
  }
}
