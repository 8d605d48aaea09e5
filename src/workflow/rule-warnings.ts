import { deadRuleReason, type RuleTargets } from '../host/dead-rules.js';
import { parseRule, type Rule } from '../host/rules.js';
import type { Problem } from './problems.js';
import type { WorkflowSource } from './source.js';
import type { WorkflowFile } from './schema.js';

const lists = ['allow', 'ask', 'deny'] as const;

function parsedOrUndefined(text: string): Rule | undefined {
  try {
    return parseRule(text);
  } catch {
    // A rule that does not parse is reported as a problem by validation.
    return undefined;
  }
}

/**
 * Warnings, at their place in the file, for the workflow's policy rules that can never match a
 * request its tools could make (a `network_tool` rule naming no tool, a class no tool uses).
 * `only` limits the check to rules naming one server's tools (checked again once it runs).
 */
export function deadFileRuleWarnings(source: WorkflowSource, file: WorkflowFile, targets: RuleTargets, only?: (rule: Rule) => boolean): Problem[] {
  const warnings: Problem[] = [];
  for (const list of lists) {
    file.policy?.[list]?.forEach((text, index) => {
      const rule = parsedOrUndefined(text);
      const reason = rule && (!only || only(rule)) ? deadRuleReason(rule, targets, list) : undefined;
      if (reason) warnings.push({ file: source.file, ...source.position(['policy', list, index]), message: `warning: ${list} rule ${JSON.stringify(text)} can never match: ${reason}` });
    });
  }
  return warnings;
}

/** The same for rules given by flags (`--allow` and the like), which have no place in the file. */
export function deadFlagRuleWarnings(rules: { allow: readonly string[]; ask: readonly string[]; deny: readonly string[] }, targets: RuleTargets, only?: (rule: Rule) => boolean): string[] {
  const warnings: string[] = [];
  for (const list of lists) {
    for (const text of rules[list]) {
      const rule = parsedOrUndefined(text);
      const reason = rule && (!only || only(rule)) ? deadRuleReason(rule, targets, list) : undefined;
      if (reason) warnings.push(`rho: warning: --${list} ${JSON.stringify(text)} can never match: ${reason}`);
    }
  }
  return warnings;
}

/** Whether a rule names tools of one server (`network_tool(ev.*)`, `network_tool(ev.echo)`). */
export function namesServer(server: string): (rule: Rule) => boolean {
  return (rule) => rule.class === 'network_tool' && rule.name !== undefined && rule.name.startsWith(`${server}.`);
}
