import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { interruptReason } from '../../host/call-result.js';
import type { GrantHints } from '../../host/denials.js';
import { exitCodes } from '../../host/exit-codes.js';
import { SecretMasker } from '../../host/masking.js';
import { cliHooks } from '../../hooks/run-hooks.js';
import { safeText } from '../../ui/safe-text.js';
import { launchWorkflow } from '../../workflow/launch.js';
import type { CompiledWorkflow } from '../../workflow/model.js';
import type { PrivateStore } from '../../workflow/private/store.js';
import { parseRunChoices } from '../../workflow/run-choices.js';
import { openStepLogs } from '../log-places.js';
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
  hostEnv: Readonly<Record<string, string | undefined>>;
  privateStore: PrivateStore | undefined;
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
 * Runs one task for a client, as `rho run FILE TASK` runs it: the same loading, validation,
 * policy (the file's alone: no rule, approval or flag is added), hooks, confinement, up-to-date
 * checks and logs. The client is the person at the terminal: it approves and answers through
 * elicitation, or nobody can and the request is denied. Everything it receives is masked.
 */
export async function runTaskCall(call: TaskCall, context: ServeContext): Promise<CallToolResult> {
  const masker = new SecretMasker();
  const mask = (text: string) => masker.mask(text);
  const report = new CallReport(call.notices);
  const warn = (line: string) => {
    context.warn(mask(line));
    report.warn(mask(line));
  };
  const controller = new AbortController();
  const cancel = () => controller.abort(interruptReason);
  if (call.signal.aborted) cancel();
  call.signal.addEventListener('abort', cancel, { once: true });
  try {
    const choices = parseRunChoices({
      ...(call.tool.task !== undefined && { task: call.tool.task }),
      inputs: parseToolArguments(call.tool, call.rawArguments),
      invocation: `tools/call ${call.tool.name}`,
    });
    const summary = await launchWorkflow({
      file: context.file,
      cwd: context.cwd,
      choices,
      ports: {
        hostEnv: context.hostEnv,
        ...(context.privateStore && { privateStore: context.privateStore }),
        admitWorkflow: context.admitWorkflow,
        masker,
        ...(call.elicit && { approver: new ElicitationApprover(call.elicit, context.sessionApprovals, mask) }),
        ...(call.elicit && { questioner: new ElicitationQuestioner(call.elicit, mask) }),
        grantHints: mcpGrantHints,
        output: { openLogs: (root) => openStepLogs({ mode: 'default' }, root, context.hostEnv, warn) },
        // The file's own hooks hold as in any run; the server adds none.
        hooks: cliHooks({ file: undefined, labels: {}, env: context.hostEnv, masker, warn }),
        warn,
      },
      signal: controller.signal,
      emit: (event) => report.handle(masker.maskDeep(event)),
    });
    report.flush();
    const text = report.summary(outcomeOf(call.tool.name, summary.exitCode), summary.firstFailure);
    if (summary.exitCode !== exitCodes.success) return errorResult(mask(text));
    if (!call.tool.outputSchema || !summary.outputs) return { content: [{ type: 'text', text: mask(text) }] };
    let outputs: Record<string, unknown>;
    try {
      outputs = masker.maskDeep(summary.outputs());
    } catch (error) {
      return errorResult(mask(`${text}\n\nThe outputs of ${call.tool.name} could not be evaluated: ${(error as Error).message}`));
    }
    return { content: [{ type: 'text', text: mask(`${text}\n\nOutputs: ${JSON.stringify(outputs)}`) }], structuredContent: outputs };
  } catch (error) {
    // Refused before anything ran: bad arguments, an invalid or changed workflow, a missing secret.
    return errorResult(safeText(mask(`${call.tool.name}: nothing ran: ${(error as Error).message}`), false));
  } finally {
    call.signal.removeEventListener('abort', cancel);
  }
}
