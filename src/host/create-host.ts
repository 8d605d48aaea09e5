import type { ApprovalAnswer, ApprovalRequest, Approver } from './approval.js';
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

const parseRules = (texts: readonly string[] | undefined, option: string) => parseRuleTexts(texts, { kind: 'invalid_configuration', option });

/**
 * A host from plain values: a workspace path, rules as text, a list of tools and an approver
 * function. Every other option is passed on as it is. A bad path or rule is a HostError
 * (`invalid_configuration`) that names the option.
 */
export async function createToolHost(setup: ToolHostSetup): Promise<ToolHost> {
  const { workspace, grantedRoots, policy, tools, approver, approve, ...options } = setup;
  const opened = typeof workspace === 'string' ? await openWorkspace(workspace, { grantedRoots: grantedRoots ?? [] }, 'invalid_configuration') : workspace;
  const rules = {
    allow: parseRules(policy?.allow, 'policy.allow'),
    ask: parseRules(policy?.ask, 'policy.ask'),
    deny: parseRules(policy?.deny, 'policy.deny'),
  };
  return new ToolHost({
    ...options,
    workspace: opened,
    policy: new Policy(rules),
    tools: tools instanceof ToolRegistry ? tools : new ToolRegistry(tools),
    scripted: { rules: parseRules(approve, 'approve'), yes: false },
    ...(approver && { approver: typeof approver === 'function' ? { approve: async (request, signal) => approver(request, signal) } : approver }),
  });
}
