import type { Approver } from '../host/approval.js';
import type { ScriptedDecision } from '../host/authorization.js';
import type { EnvMode } from '../host/capability.js';
import { HostError } from '../host/errors.js';
import type { PreToolGate } from '../host/gates.js';
import type { Questioner } from '../host/host-input.js';
import { Policy } from '../host/policy.js';
import type { ToolRegistry } from '../host/registry.js';
import { parseRule } from '../host/rules.js';
import { ToolHost, type CallFinishedListener } from '../host/tool-host.js';
import { Workspace } from '../host/workspace.js';

/** Everything a front end decides about a host; rules and roots as the user wrote them. */
export interface HostSettings {
  root: string;
  grantedRoots: readonly string[];
  rules: { allow: readonly string[]; ask: readonly string[]; deny: readonly string[] };
  approve: readonly string[];
  yes: boolean;
  onScriptedDecision?: (decision: ScriptedDecision) => void;
  hostEnv: Readonly<Record<string, string | undefined>>;
  secretNames: readonly string[];
  processEnv: EnvMode;
  /** The workflow's `env:`, evaluated: given to every process step. */
  processVariables?: Readonly<Record<string, string>>;
  approver?: Approver;
  questioner?: Questioner;
  gates?: readonly PreToolGate[];
  tools: ToolRegistry;
  maxParallel?: number;
  redact?: (text: string) => string;
  onWarning?: (message: string) => void;
  onCallFinished?: CallFinishedListener;
}

function parseRules(rules: readonly string[]) {
  return rules.map((rule) => {
    try {
      return parseRule(rule);
    } catch (error) {
      throw new HostError('usage', (error as Error).message, { cause: error });
    }
  });
}

/** Builds a ToolHost from front-end settings; a bad root or rule is a usage error. */
export async function buildHost(settings: HostSettings): Promise<ToolHost> {
  let workspace: Workspace;
  try {
    workspace = await Workspace.create(settings.root, { grantedRoots: settings.grantedRoots });
  } catch (error) {
    throw new HostError('usage', `workspace: ${(error as Error).message}`, { cause: error });
  }
  const policy = new Policy({ allow: parseRules(settings.rules.allow), ask: parseRules(settings.rules.ask), deny: parseRules(settings.rules.deny) });
  return new ToolHost({
    workspace,
    policy,
    tools: settings.tools,
    environment: {
      env: settings.hostEnv,
      secretNames: settings.secretNames,
      processEnv: settings.processEnv,
      ...(settings.processVariables && { processVariables: settings.processVariables }),
    },
    scripted: {
      rules: parseRules(settings.approve),
      yes: settings.yes,
      ...(settings.onScriptedDecision && { onDecision: settings.onScriptedDecision }),
    },
    ...(settings.approver && { approver: settings.approver }),
    ...(settings.questioner && { questioner: settings.questioner }),
    ...(settings.gates && { gates: settings.gates }),
    ...(settings.maxParallel !== undefined && { maxParallel: settings.maxParallel }),
    ...(settings.redact && { redact: settings.redact }),
    ...(settings.onWarning && { onWarning: settings.onWarning }),
    ...(settings.onCallFinished && { onCallFinished: settings.onCallFinished }),
  });
}
