import { describeRequest, grantingRule, type CapabilityRequest } from './capability.js';
import { ToolError } from './errors.js';
import type { Delegation } from './hooks/delegation.js';
import type { PolicyEvaluation } from './policy.js';
import type { ToolOrigin } from './tool.js';
import { environmentNotGranted } from './rules.js';

/** Who asks: enough to name the step in a message. */
export interface AuthorizationSubject {
  callId: string;
  stepId: string | undefined;
  tool: string;
  /**
   * Where the request comes from: a built-in tool (which enforces what it declares), a
   * host-provided tool (trusted in-process code, which policy cannot sandbox if it ignores its
   * context), or an MCP server's tool. A request the embedding code makes itself (a workflow's
   * env file) is `host`.
   */
  source: ToolOrigin;
  /** The call's delegation identity, for the gates' envelopes. */
  delegation?: Delegation | undefined;
}

/**
 * How a denial says what would grant the request. The host speaks of rules; a front end that has
 * flags (the CLI) passes hints that name them, ready to paste.
 */
export interface GrantHints {
  /** How to allow `rule` (a rule in the policy's grammar). */
  allow(rule: string): string;
  /** How to answer a request that `rule` matches without asking anyone. */
  approve(rule: string): string;
  /** Why nobody could be asked. */
  nobodyToAsk: string;
}

/** What a library host says: rules and options, no flags. */
export const libraryGrantHints: GrantHints = {
  allow: (rule) => `add the rule ${JSON.stringify(rule)} to the policy's allow rules`,
  approve: (rule) => `give the host a scripted approval rule ${JSON.stringify(rule)} or an approver`,
  nobodyToAsk: 'this host has no approver',
};

/** Quotes a word for a POSIX shell, so a hint can be pasted as it is. */
export function shellQuote(word: string): string {
  return /^[\w./@:+,=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function describe(subject: AuthorizationSubject, request: CapabilityRequest): string {
  const where = subject.stepId ? `step ${subject.stepId}: ` : '';
  return `${where}${request.class} request "${describeRequest(request)}"`;
}

function details(request: CapabilityRequest, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { class: request.class, rule: grantingRule(request), ...extra };
}

export function policyDenied(subject: AuthorizationSubject, request: CapabilityRequest, evaluation: PolicyEvaluation, hints: GrantHints): ToolError {
  const what = `${describe(subject, request)} was denied by policy`;
  const rule = evaluation.rule?.text;
  let message: string;
  switch (evaluation.reason) {
    case 'protected_env': {
      const names = evaluation.rule ? environmentNotGranted(evaluation.rule, request).join(', ') : '';
      message = `${what}: it sets ${names} in the process environment, which can change what the program executes, and the rule that matched (${rule}) does not grant that; to grant it, ${hints.allow(grantingRule(request))}, or leave ${names} out of the step's env and the workflow's env:`;
      break;
    }
    case 'hard_link':
      message = `${what}: the file has ${'path' in request ? (request.path.links ?? 2) : 2} names (hard links), and a deny or ask read rule names paths one of its other names may lie under; copy the file to read it, or remove the link`;
      break;
    case 'outside':
      message = rule
        ? `${what}: the path is outside the workspace and the rule deny: ${rule} matches; remove or narrow that deny rule`
        : `${what}: the path is outside the workspace, which needs the "outside" rule; to grant it, ${hints.allow('outside')}`;
      break;
    case 'rule':
      message = `${what}: the rule deny: ${rule} matches; remove or narrow that deny rule`;
      break;
    case 'no_rule': {
      const grant = grantingRule(request);
      message = `${what}: no rule allows it; to grant it, ${hints.allow(grant)}`;
      break;
    }
  }
  return new ToolError('policy_denied', message, { details: details(request, { reason: evaluation.reason }) });
}

export function hookDenied(subject: AuthorizationSubject, request: CapabilityRequest, hook: string, reason: string): ToolError {
  return new ToolError(
    'hook_denied',
    `${describe(subject, request)} was denied by hook ${hook}: ${reason}; no approval can override a hook's deny: change the hook or the request`,
    { details: details(request, { hook }) },
  );
}

/** Nobody can answer (no TTY, `CI=true` or `--no-input`) and no flag did: denied at once. */
export function unanswered(subject: AuthorizationSubject, request: CapabilityRequest, askedBy: string | undefined, hints: GrantHints): ToolError {
  const why = askedBy ? ` (the rule ask: ${askedBy} matches)` : '';
  return new ToolError(
    'approval_denied',
    `${describe(subject, request)} needs approval${why} and nobody can answer here (${hints.nobodyToAsk}); to approve it, ${hints.approve(grantingRule(request))}`,
    { details: details(request) },
  );
}

export function approvalDenied(subject: AuthorizationSubject, request: CapabilityRequest, hints: GrantHints): ToolError {
  return new ToolError(
    'approval_denied',
    `${describe(subject, request)} was denied at the approval prompt; to approve it without a prompt, ${hints.approve(grantingRule(request))}`,
    { details: details(request) },
  );
}

export function approverFailed(subject: AuthorizationSubject, request: CapabilityRequest, cause: unknown): ToolError {
  return new ToolError('approval_denied', `${describe(subject, request)} was not approved: the approver failed (${cause instanceof Error ? cause.message : String(cause)})`, {
    cause,
    details: details(request),
  });
}

export function cancelled(subject: AuthorizationSubject, request: CapabilityRequest): ToolError {
  return new ToolError('cancelled', `${describe(subject, request)} was cancelled while waiting for a decision`, {
    details: { class: request.class },
  });
}
