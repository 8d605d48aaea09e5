import { isOutsideWorkspace, type CapabilityRequest } from './capability.js';
import { parseRule, ruleMatches, type Rule } from './rules.js';

export type PolicyDecision = 'allow' | 'ask' | 'deny';

export interface PolicyRules {
  allow: readonly Rule[];
  ask: readonly Rule[];
  deny: readonly Rule[];
}

export interface PolicyEvaluation {
  decision: PolicyDecision;
  /** The rule that decided, or undefined when nothing matched (default deny). */
  rule: Rule | undefined;
  /** True when the request needed `outside` and that is what decided. */
  decidedByOutside: boolean;
}

const strictness: Readonly<Record<PolicyDecision, number>> = { allow: 0, ask: 1, deny: 2 };

export function stricterOf(a: PolicyDecision, b: PolicyDecision): PolicyDecision {
  return strictness[a] >= strictness[b] ? a : b;
}

/**
 * Default-deny policy. A deny that matches the path as written or as resolved wins; then ask;
 * then an allow that matches the resolved path; then deny. A request outside the workspace
 * must also pass the `outside` rules, and the stricter of the two answers stands.
 */
export class Policy {
  readonly rules: PolicyRules;

  constructor(rules: Partial<PolicyRules> = {}) {
    this.rules = { allow: rules.allow ?? [], ask: rules.ask ?? [], deny: rules.deny ?? [] };
  }

  static fromText(rules: { allow?: readonly string[]; ask?: readonly string[]; deny?: readonly string[] }): Policy {
    return new Policy({
      allow: (rules.allow ?? []).map(parseRule),
      ask: (rules.ask ?? []).map(parseRule),
      deny: (rules.deny ?? []).map(parseRule),
    });
  }

  /** A policy with another policy's rules added (flags join the file's rules). */
  join(other: Policy): Policy {
    return new Policy({
      allow: [...this.rules.allow, ...other.rules.allow],
      ask: [...this.rules.ask, ...other.rules.ask],
      deny: [...this.rules.deny, ...other.rules.deny],
    });
  }

  evaluate(request: CapabilityRequest, workspaceRoot: string): PolicyEvaluation {
    const own = this.evaluateRules(request, workspaceRoot, (rule) => rule.class !== 'outside');
    if (!isOutsideWorkspace(request) || own.decision === 'deny') return { ...own, decidedByOutside: false };
    const outside = this.evaluateRules(request, workspaceRoot, (rule) => rule.class === 'outside');
    if (stricterOf(own.decision, outside.decision) === own.decision) return { ...own, decidedByOutside: false };
    return { ...outside, decidedByOutside: true };
  }

  private evaluateRules(
    request: CapabilityRequest,
    root: string,
    include: (rule: Rule) => boolean,
  ): { decision: PolicyDecision; rule: Rule | undefined } {
    const find = (rules: readonly Rule[], views: readonly ('written' | 'resolved')[]) =>
      rules.find((rule) => include(rule) && views.some((view) => ruleMatches(rule, request, root, view)));
    const denied = find(this.rules.deny, ['written', 'resolved']);
    if (denied) return { decision: 'deny', rule: denied };
    const asked = find(this.rules.ask, ['written', 'resolved']);
    if (asked) return { decision: 'ask', rule: asked };
    const allowed = find(this.rules.allow, ['resolved']);
    if (allowed) return { decision: 'allow', rule: allowed };
    return { decision: 'deny', rule: undefined };
  }
}
