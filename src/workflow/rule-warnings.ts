import path from 'node:path';
import { confinesWiderThanWritten, literalPrefix } from '../host/confinement/rule-paths.js';
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

/** A rule that can never match, where it was written and why. */
interface DeadRule {
  list: (typeof lists)[number];
  index: number;
  text: string;
  reason: string;
}

/**
 * The rules of each list that can never match a request the run's tools could make (a
 * `network_tool` rule naming no tool, a class no tool uses). `only` limits the check to some
 * rules (those naming one server's tools, checked again once it runs).
 */
function deadRules(rules: Partial<Record<(typeof lists)[number], readonly string[]>>, targets: RuleTargets, only?: (rule: Rule) => boolean): DeadRule[] {
  return lists.flatMap((list) =>
    (rules[list] ?? []).flatMap((text, index) => {
      const rule = parsedOrUndefined(text);
      const reason = rule && (!only || only(rule)) ? deadRuleReason(rule, targets, list) : undefined;
      return reason ? [{ list, index, text, reason }] : [];
    }),
  );
}

/** Warnings, at their place in the file, for the workflow's policy rules that can never match (`deadRules`). */
export function deadFileRuleWarnings(source: WorkflowSource, file: WorkflowFile, targets: RuleTargets, only?: (rule: Rule) => boolean): Problem[] {
  return deadRules(file.policy ?? {}, targets, only).map(({ list, index, text, reason }) => ({
    file: source.file,
    ...source.position(['policy', list, index]),
    message: `warning: ${list} rule ${JSON.stringify(text)} can never match: ${reason}`,
  }));
}

/** The same for rules given by flags (`--allow` and the like), which have no place in the file. */
export function deadFlagRuleWarnings(
  rules: { allow: readonly string[]; ask: readonly string[]; deny: readonly string[] },
  targets: RuleTargets,
  only?: (rule: Rule) => boolean,
): string[] {
  return deadRules(rules, targets, only).map(({ list, text, reason }) => `rho: warning: --${list} ${JSON.stringify(text)} can never match: ${reason}`);
}

/** Whether a rule names tools of one server (`network_tool(ev.*)`, `network_tool(ev.echo)`). */
export function namesServer(server: string): (rule: Rule) => boolean {
  return (rule) => rule.class === 'network_tool' && rule.name !== undefined && rule.name.startsWith(`${server}.`);
}

/**
 * Why an allow rule confines processes to more than its text names, or undefined: a write glob
 * whose wildcards pick names (the `*.ts` files anywhere under `src`) makes its whole literal
 * directory writable to processes, since a sandbox mounts directories, not the files a glob matches.
 */
export function widerConfinementReason(rule: Rule): string | undefined {
  if (rule.class !== 'write' || rule.glob === undefined || !confinesWiderThanWritten(rule.glob)) return undefined;
  const directory = literalPrefix(rule.glob, path.sep).path;
  const root = path.isAbsolute(rule.glob) ? directory : directory === path.sep ? undefined : `${directory.slice(1)}/`;
  const where = root === undefined ? 'the whole workspace (.git included)' : root;
  return (
    `processes get more than it names: a confined process may write anything in ${where}, since the sandbox makes a glob's literal directory writable; ` +
    `name the directories or files processes write instead (write(DIR/**), write(FILE)), or give each step writes:`
  );
}

/** Warnings, at their place in the file, for allow rules whose confinement is wider than their text (`widerConfinementReason`). */
export function widerFileRuleWarnings(source: WorkflowSource, file: WorkflowFile): Problem[] {
  const warnings: Problem[] = [];
  file.policy?.allow?.forEach((text, index) => {
    const rule = parsedOrUndefined(text);
    const reason = rule && widerConfinementReason(rule);
    if (reason) warnings.push({ file: source.file, ...source.position(['policy', 'allow', index]), message: `warning: allow rule ${JSON.stringify(text)}: ${reason}` });
  });
  return warnings;
}

/** The same for `--allow` rules, which have no place in the file. */
export function widerFlagRuleWarnings(allow: readonly string[]): string[] {
  return allow.flatMap((text) => {
    const rule = parsedOrUndefined(text);
    const reason = rule && widerConfinementReason(rule);
    return reason ? [`rho: warning: --allow ${JSON.stringify(text)}: ${reason}`] : [];
  });
}
