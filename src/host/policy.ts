import { isOutsideWorkspace, type CapabilityRequest } from './capability.js';
import path from 'node:path';
import {
  entrySubject,
  environmentConditionsHold,
  environmentNotGranted,
  isUnrestricted,
  parseRule,
  readRuleCovers,
  readRuleCoversSubject,
  readRuleMayCoverBelow,
  ruleMatches,
  ruleSubject,
  type PathView,
  type Rule,
  type VariableGrants,
} from './rules.js';
import { EnvGrants } from './env-grants.js';
import { ProgramEnvGrants } from './program-env-grants.js';
import { isWithin } from './workspace.js';

export type PolicyDecision = 'allow' | 'ask' | 'deny';

export interface PolicyRules {
  allow: readonly Rule[];
  ask: readonly Rule[];
  deny: readonly Rule[];
  /**
   * Ask rules that only narrow: one turns a request the other rules allow into a question, and
   * never grants one they deny (a called file's `ask:`, which may not widen the calling run).
   */
  askIfAllowed: readonly Rule[];
}

/**
 * Why the policy decided as it did:
 * - `rule`: `rule` matched;
 * - `no_rule`: nothing matched, so the default (deny) applies;
 * - `outside`: the path lies outside the workspace and the `outside` rules decided (`rule` is
 *   the matching `outside` rule, or undefined when none allows it);
 * - `env_not_granted`: a rule matched the process, but it sets variables that neither that rule
 *   nor the policy's grants let it set (`environmentNotGranted`); `rule` is that rule and
 *   `variables` those variables.
 * - `hard_link`: the file to read has more than one name (hard link) while a `deny` or `ask`
 *   read rule names paths: its other names cannot be known, and one may be a path such a rule
 *   keeps back, so it is refused; `rule` is the rule that would otherwise have decided.
 */
export type PolicyReason = 'rule' | 'no_rule' | 'outside' | 'env_not_granted' | 'hard_link';

export interface PolicyEvaluation {
  decision: PolicyDecision;
  rule: Rule | undefined;
  reason: PolicyReason;
  /** For `env_not_granted`: the variables the request sets that nothing grants. */
  variables?: readonly string[];
}

/** Anything that decides requests like a Policy (the authorizer needs nothing more). */
export interface PolicyEvaluator {
  evaluate(request: CapabilityRequest, workspaceRoot: string): PolicyEvaluation;
  /** The variables a process request sets that `rule` (an `--approve` rule, say) and the policy's grants do not let it set. */
  environmentNotGranted(rule: Rule, request: CapabilityRequest): string[];
}

const strictness: Readonly<Record<PolicyDecision, number>> = { allow: 0, ask: 1, deny: 2 };

export function stricterOf(a: PolicyDecision, b: PolicyDecision): PolicyDecision {
  return strictness[a] >= strictness[b] ? a : b;
}

const keepersBelowLimit = 4096;

/** Whether a request reads the content of a regular file that has more than one name. */
function readsLinkedFile(request: CapabilityRequest): boolean {
  const reads = request.class === 'read' || request.class === 'skill' || request.class === 'instructions';
  return reads && (request.path.links ?? 1) > 1;
}

/**
 * Default-deny policy. A deny that matches the path as written or as resolved wins; then ask;
 * then an allow that matches the resolved path; then deny. A request outside the workspace
 * must also pass the `outside` rules, and the stricter of the two answers stands.
 */
export class Policy implements PolicyEvaluator {
  readonly rules: PolicyRules;
  /** The variables processes may be given without their rule naming them (`policy.env`, secrets, host variables). */
  readonly envGrants: EnvGrants;
  /** `envGrants`, and the rules of the programs a variable changes (`ProgramEnvGrants`). */
  readonly #variableGrants: VariableGrants;
  /** Per directory (and workspace root), the deny and ask read rules that could cover one of its entries. */
  readonly #keepersBelow = new Map<string, { subject: string; rules: readonly Rule[] }>();

  constructor(rules: Partial<PolicyRules> = {}, envGrants = new EnvGrants()) {
    this.rules = { allow: rules.allow ?? [], ask: rules.ask ?? [], deny: rules.deny ?? [], askIfAllowed: rules.askIfAllowed ?? [] };
    this.envGrants = envGrants;
    const byProgram = new ProgramEnvGrants(this.rules.allow, this.rules.deny);
    this.#variableGrants = { grants: (name, value, request) => envGrants.grants(name) || byProgram.grants(name, value, request) };
  }

  /**
   * A policy from rule texts; `env` is `policy.env` (variables any process may be given: names or
   * `PREFIX*`); `home` is what `~` in their paths stands for (without one, such rules are refused).
   */
  static fromText(rules: { allow?: readonly string[]; ask?: readonly string[]; deny?: readonly string[]; env?: readonly string[] }, home?: string): Policy {
    const parse = (texts: readonly string[] | undefined) => (texts ?? []).map((text) => parseRule(text, home));
    return new Policy({ allow: parse(rules.allow), ask: parse(rules.ask), deny: parse(rules.deny) }, new EnvGrants(rules.env ?? []));
  }

  environmentNotGranted(rule: Rule, request: CapabilityRequest): string[] {
    return environmentNotGranted(rule, request, this.#variableGrants);
  }

  /**
   * Whether a path inside an authorized tree is still kept back by a `deny` or `ask` read rule:
   * a tree read is one request, so the walks of list_files and search_files skip such entries.
   */
  withholdsRead(absolute: string, workspaceRoot: string, links = 1): boolean {
    if (links > 1 && this.keepsBackNamedReads()) return true;
    const below = this.keepersOf(absolute, workspaceRoot);
    if (!below) return this.withheld().some((rule) => readRuleCovers(rule, absolute, workspaceRoot));
    if (below.rules.length === 0) return false;
    const subject = entrySubject(below.subject, path.basename(absolute));
    if (subject === undefined) return below.rules.some((rule) => readRuleCovers(rule, absolute, workspaceRoot));
    return below.rules.some((rule) => readRuleCoversSubject(rule, subject));
  }

  /**
   * The rules `withholdsRead` must test for `absolute`, with its directory's rule form: those
   * that could cover an entry of its directory, worked out once per directory (a walk asks for
   * every entry of one directory in turn). Undefined for a path whose directory is not inside
   * the workspace: every rule is tested on it.
   */
  private keepersOf(absolute: string, workspaceRoot: string): { subject: string; rules: readonly Rule[] } | undefined {
    if (this.withheld().length === 0) return { subject: '.', rules: [] };
    const directory = path.dirname(absolute);
    if (directory === absolute || !isWithin(workspaceRoot, directory)) return undefined;
    const key = `${workspaceRoot}\0${directory}`;
    let below = this.#keepersBelow.get(key);
    if (!below) {
      if (this.#keepersBelow.size >= keepersBelowLimit) this.#keepersBelow.clear();
      const rules = this.withheld().filter((rule) => readRuleMayCoverBelow(rule, directory, workspaceRoot));
      below = { subject: ruleSubject(directory, workspaceRoot), rules };
      this.#keepersBelow.set(key, below);
    }
    return below;
  }

  /** Whether some deny or ask rule keeps back reads of particular paths (`read(secret/**)`, not `read`). */
  private keepsBackNamedReads(): boolean {
    return this.withheld().some((rule) => rule.class === 'read' && !isUnrestricted(rule));
  }

  evaluate(request: CapabilityRequest, workspaceRoot: string): PolicyEvaluation {
    const own = this.evaluateRules(request, workspaceRoot, (rule) => rule.class !== 'outside');
    if (own.decision !== 'deny' && readsLinkedFile(request) && this.keepsBackNamedReads()) {
      return { decision: 'deny', rule: own.rule, reason: 'hard_link' };
    }
    if (!isOutsideWorkspace(request) || own.decision === 'deny') return own;
    const outside = this.evaluateRules(request, workspaceRoot, (rule) => rule.class === 'outside');
    if (stricterOf(own.decision, outside.decision) === own.decision) return own;
    return { ...outside, reason: 'outside' };
  }

  /**
   * Deny, then ask, then allow. A deny rule's environment assignments narrow it; an ask or allow
   * rule must also grant every variable the request sets, or the policy's grants must
   * (`environmentNotGranted`): when rules of a level match the program but none grants its
   * environment, the request is denied.
   */
  private evaluateRules(request: CapabilityRequest, root: string, include: (rule: Rule) => boolean): PolicyEvaluation {
    const matching = (rule: Rule, views: readonly PathView[]) => include(rule) && views.some((view) => ruleMatches(rule, request, root, view));
    const denied = this.rules.deny.find((rule) => matching(rule, ['written', 'resolved']) && environmentConditionsHold(rule, request));
    if (denied) return { decision: 'deny', rule: denied, reason: 'rule' };
    const levels = [
      ['ask', this.rules.ask, ['written', 'resolved']],
      ['allow', this.rules.allow, ['resolved']],
    ] as const;
    for (const [decision, rules, views] of levels) {
      let withoutEnvironment: { rule: Rule; variables: string[] } | undefined;
      for (const rule of rules) {
        if (!matching(rule, views)) continue;
        const variables = this.environmentNotGranted(rule, request);
        if (variables.length === 0)
          return this.narrowed({ decision, rule, reason: 'rule' }, (candidate) => matching(candidate, ['written', 'resolved']) && environmentConditionsHold(candidate, request));
        withoutEnvironment ??= { rule, variables };
      }
      if (withoutEnvironment) return { decision: 'deny', rule: withoutEnvironment.rule, reason: 'env_not_granted', variables: withoutEnvironment.variables };
    }
    return { decision: 'deny', rule: undefined, reason: 'no_rule' };
  }

  /** An allow turned into a question by an `askIfAllowed` rule that matches (its assignments narrowing it, as a deny's do). */
  private narrowed(evaluation: PolicyEvaluation, matches: (rule: Rule) => boolean): PolicyEvaluation {
    if (evaluation.decision !== 'allow') return evaluation;
    const asking = this.rules.askIfAllowed.find(matches);
    return asking ? { decision: 'ask', rule: asking, reason: 'rule' } : evaluation;
  }

  /** The rules that keep back what they name: deny, ask and narrowing ask rules. */
  private withheld(): readonly Rule[] {
    return [...this.rules.deny, ...this.rules.ask, ...this.rules.askIfAllowed];
  }
}
