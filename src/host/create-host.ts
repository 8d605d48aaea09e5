import type { ApprovalAnswer, ApprovalRequest, Approver } from './approval.js';
import type { ScriptedApprovals } from './authorization.js';
import { HostError, type HostErrorKind } from './errors.js';
import { Policy } from './policy.js';
import { ToolRegistry } from './registry.js';
import { parseRule, type Rule } from './rules.js';
import type { Tool } from './tool.js';
import { ToolHost, type ToolHostOptions } from './tool-host.js';
import { Workspace, type WorkspaceOptions } from './workspace.js';

/** An approver written as one function. */
export type ApproveFunction = (request: ApprovalRequest, signal: AbortSignal) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** What `createToolHost` builds a host from: paths and rules as text, tools as a list. */
export interface ToolHostSetup extends Omit<ToolHostOptions, 'workspace' | 'policy' | 'tools' | 'approver' | 'scripted'> {
  /** The workspace root: a path to an existing directory (or a Workspace already made). */
  workspace: string | Workspace;
  /** Directories outside the workspace that paths may name (they also need the `outside` rule). */
  grantedRoots?: readonly string[];
  /** The policy's rules, as a workflow's `policy:` writes them; absent: nothing is allowed. */
  policy?: { allow?: readonly string[]; ask?: readonly string[]; deny?: readonly string[] };
  tools: readonly Tool[] | ToolRegistry;
  /** Answers what `ask` rules ask: a function or an Approver. Absent: every such request is denied. */
  approver?: ApproveFunction | Approver;
  /** Rules whose requests are approved without asking (as the CLI's `--approve`); they never outrank a deny or a gate. */
  approve?: readonly string[];
}

/** How a bad root or rule is reported: the library names the option; the CLI says a usage error, the rule's own words. */
export interface SetupFailure {
  kind: HostErrorKind;
  /** Leads the message (`policy.allow: …`); none: the rule's message alone. */
  option?: string;
}

/** Rules from their text (`~` standing for `home`); a bad one is a HostError as `failure` says. */
export function parseRuleTexts(texts: readonly string[] | undefined, failure: SetupFailure, home?: string): Rule[] {
  return (texts ?? []).map((text) => {
    try {
      return parseRule(text, home);
    } catch (cause) {
      const message = (cause as Error).message;
      throw new HostError(failure.kind, failure.option === undefined ? message : `${failure.option}: ${message}`, { cause });
    }
  });
}

/** A workspace at `root`; a root that cannot be one is a HostError of `kind` that names the workspace. */
export async function openWorkspace(root: string, options: WorkspaceOptions, kind: HostErrorKind): Promise<Workspace> {
  try {
    return await Workspace.create(root, options);
  } catch (cause) {
    throw new HostError(kind, `workspace: ${(cause as Error).message}`, { cause });
  }
}

/** What the CLI's run adds to a library setup: its policy built already (`EnvGrants`, called files' rules), `--yes`, and an echo of each scripted decision. */
export interface RunHostSetup extends Omit<ToolHostSetup, 'policy'> {
  policy?: ToolHostSetup['policy'] | Policy;
  yes?: boolean;
  onScriptedDecision?: ScriptedApprovals['onDecision'];
}

/** How a setup's texts are read: the error a bad root or rule is, whether it names its option, and what `~` stands for. */
export interface SetupReading {
  kind: HostErrorKind;
  namesOption: boolean;
  home?: string;
}

/** The library's reading: a bad path or rule is `invalid_configuration` and names its option; `~` is not expanded. */
const libraryReading: SetupReading = { kind: 'invalid_configuration', namesOption: true };

/**
 * A host from plain values: a workspace path, rules as text, a list of tools and an approver
 * function. Every other option is passed on as it is. A bad path or rule is a HostError
 * (`invalid_configuration`) that names the option.
 */
export function createToolHost(setup: ToolHostSetup): Promise<ToolHost> {
  return hostFromSetup(setup, libraryReading);
}

/** The one way a ToolHost is built from a setup: the library's `createToolHost` and the CLI's runs both come here. */
export async function hostFromSetup(setup: RunHostSetup, reading: SetupReading): Promise<ToolHost> {
  const { workspace, grantedRoots, policy, tools, approver, approve, yes, onScriptedDecision, ...options } = setup;
  const failure = (option: string): SetupFailure => (reading.namesOption ? { kind: reading.kind, option } : { kind: reading.kind });
  const rules = (texts: readonly string[] | undefined, option: string) => parseRuleTexts(texts, failure(option), reading.home);
  const opened = typeof workspace === 'string' ? await openWorkspace(workspace, { grantedRoots: grantedRoots ?? [] }, reading.kind) : workspace;
  return new ToolHost({
    ...options,
    workspace: opened,
    policy:
      policy instanceof Policy
        ? policy
        : new Policy({ allow: rules(policy?.allow, 'policy.allow'), ask: rules(policy?.ask, 'policy.ask'), deny: rules(policy?.deny, 'policy.deny') }),
    tools: tools instanceof ToolRegistry ? tools : new ToolRegistry(tools),
    scripted: { rules: rules(approve, 'approve'), yes: yes ?? false, ...(onScriptedDecision && { onDecision: onScriptedDecision }) },
    ...(approver && { approver: typeof approver === 'function' ? { approve: async (request, signal) => approver(request, signal) } : approver }),
  });
}
