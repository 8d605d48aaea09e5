import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { interruptReason } from '../../host/call-result.js';
import type { GrantHints } from '../../host/denials.js';
import { RhoError } from '../../host/errors.js';
import { exitCodeOfError, exitCodes } from '../../host/exit-codes.js';
import type { SecretMasker } from '../../host/masking.js';
import { safeText } from '../../ui/safe-text.js';
import { launchWorkflow } from '../../workflow/launch.js';
import type { CompiledWorkflow } from '../../workflow/model.js';
import { parseRunChoices } from '../../workflow/run-choices.js';
import type { RunSummary } from '../../workflow/runner.js';
import { assembleRun, type RunClient } from '../assemble-run.js';
import type { CliEnvironment } from '../environment.js';
import type { RunSettings } from '../run-settings.js';
import { CallReport, type CallNotices } from './call-report.js';
import { ElicitationApprover, type Elicit } from './elicitation-approver.js';
import { ElicitationQuestioner } from './elicitation-questioner.js';
import { parseToolArguments, type TaskTool } from './task-tools.js';

/** Denials say what would grant the request in the workflow file: an agent has no flags to pass. */
export const mcpGrantHints: GrantHints = {
  allow: (rule) => `add ${JSON.stringify(rule)} to policy.allow in the workflow file (the server serves the file as it was when it started: restart it after the change)`,
  approve: (rule) => `use an MCP client that supports elicitation, so a person can approve it, or add ${JSON.stringify(rule)} to policy.allow in the workflow file`,
  nobodyToAsk: 'the MCP client does not support elicitation',
};

/** What every call of one server shares. */
export interface ServeContext {
  file: string;
  cwd: string;
  /** The server's own environment: the only source of secrets and inherited variables. */
  environment: CliEnvironment;
  /** Approvals given "for this session", by request fingerprint. */
  sessionApprovals: Set<string>;
  /** Refuses a call when the file no longer is the one served. */
  admitWorkflow: (workflow: CompiledWorkflow) => void;
  /** Lines for the person who started the server (stderr). */
  warn(line: string): void;
}

/** One `tools/call` as the client made it. */
export interface TaskCall {
  tool: TaskTool;
  rawArguments: unknown;
  /** Present when the client declared form elicitation. */
  elicit: Elicit | undefined;
  notices: CallNotices;
  /** Aborted when the client cancels the call (or the server closes). */
  signal: AbortSignal;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** How the run ended, as the summary's first line says it. */
function outcomeOf(task: string, exitCode: number): string {
  if (exitCode === exitCodes.success) return `${task}: succeeded`;
  if (exitCode === exitCodes.denied) return `${task}: denied`;
  if (exitCode === exitCodes.interrupted) return `${task}: cancelled`;
  return `${task}: failed (exit code ${exitCode})`;
}

/**
 * Runs one task for a client, as `rho run FILE TASK` runs it: the same assembly, loading,
 * validation, policy (the file's alone: no rule, approval or flag is added), hooks, confinement,
 * up-to-date checks and logs. The client is the person at the terminal: it approves and answers
 * through elicitation, or nobody can and the request is denied. Everything it receives is masked.
 */
export async function runTaskCall(call: TaskCall, context: ServeContext): Promise<CallToolResult> {
  const report = new CallReport(call.notices);
  const client = (mask: (text: string) => string): RunClient => ({
    approver: call.elicit && new ElicitationApprover(call.elicit, context.sessionApprovals, mask),
    questioner: call.elicit && new ElicitationQuestioner(call.elicit, mask),
    grantHints: mcpGrantHints,
    events: (event) => report.handle(event),
    lines: (line) => {
      context.warn(line);
      report.warn(line);
    },
  });
  // Only JSON-RPC reaches the server's stdout: the run writes nothing there.
  const unused = { write: () => {} };
  // The client cancelling the call (or the server closing) stops the run as Ctrl-C would.
  const stop = new AbortController();
  const cancel = () => stop.abort(interruptReason);
  if (call.signal.aborted) cancel();
  call.signal.addEventListener('abort', cancel, { once: true });
  let result: CallToolResult | undefined;
  const control = { stop: stop.signal, admitWorkflow: context.admitWorkflow, client };
  await assembleRun(callSettings(context), { stdout: unused, stderr: unused }, control, async (run) => {
    const mask = (text: string) => run.masker.mask(text);
    let summary: RunSummary;
    try {
      const choices = parseRunChoices({ task: call.tool.task, inputs: parseToolArguments(call.tool, call.rawArguments), invocation: `tools/call ${call.tool.name}` });
      summary = await launchWorkflow({ file: context.file, cwd: context.cwd, choices, ports: run.ports, signal: run.signal, emit: run.emit });
    } catch (error) {
      if (!(error instanceof RhoError)) throw error;
      // Refused before anything ran: bad arguments, an invalid or changed workflow, a missing secret.
      result = errorResult(safeText(mask(`${call.tool.name}: nothing ran: ${error.message}`), false));
      return exitCodeOfError(error);
    }
    report.flush();
    result = callResult(call.tool, summary, report.summary(outcomeOf(call.tool.name, summary.exitCode), summary.firstFailure), run.masker);
    return summary.exitCode;
  }).finally(() => call.signal.removeEventListener('abort', cancel));
  return result ?? errorResult(`${call.tool.name}: nothing ran`);
}

/** The settings of a call's run: the server's environment; nobody at a terminal, no reports, logs in the default place. */
function callSettings(context: ServeContext): RunSettings & { file: string } {
  return {
    file: context.file,
    choices: parseRunChoices({}),
    environment: context.environment,
    interactive: false,
    reports: undefined,
    logs: { mode: 'default' },
    timeoutMs: undefined,
    // The file's own hooks hold as in any run; the server adds none.
    hooks: { file: undefined, labels: {} },
    answers: new Map(),
    answersFile: undefined,
    questionTimeoutSeconds: undefined,
    sandboxProbe: undefined,
  };
}

/** What a run that started returns: its summary, and the task's outputs when it declares them and succeeded. */
function callResult(tool: TaskTool, summary: RunSummary, text: string, masker: SecretMasker): CallToolResult {
  const mask = (line: string) => masker.mask(line);
  if (summary.exitCode !== exitCodes.success) return errorResult(mask(text));
  if (!tool.outputSchema || !summary.outputs) return { content: [{ type: 'text', text: mask(text) }] };
  let outputs: Record<string, unknown>;
  try {
    outputs = masker.maskDeep(summary.outputs());
  } catch (error) {
    return errorResult(mask(`${text}\n\nThe outputs of ${tool.name} could not be evaluated: ${(error as Error).message}`));
  }
  return { content: [{ type: 'text', text: mask(`${text}\n\nOutputs: ${JSON.stringify(outputs)}`) }], structuredContent: outputs };
}
