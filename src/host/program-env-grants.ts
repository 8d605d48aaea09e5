import path from 'node:path';
import type { ProcessRequest } from './capability.js';
import { programsAffectedBy } from './protected-env.js';
import type { Rule } from './rules.js';

/** Whether a process rule names one of these programs (by its file name: `npm`, `/usr/bin/npm`). */
function namesProgram(rule: Rule, programs: readonly string[]): rule is Extract<Rule, { class: 'process' }> {
  return rule.class === 'process' && rule.executable !== undefined && programs.includes(path.basename(rule.executable));
}

/** Whether a rule assigns the variable this value (or any value, `NAME=*`). */
function assigns(rule: Extract<Rule, { class: 'process' }>, name: string, value: string): boolean {
  return (rule.env ?? []).some((assignment) => assignment.name === name && (assignment.value === undefined || assignment.value === value));
}

/**
 * A variable that changes what a few known programs run (`npm_config_*` for npm, `GIT_*` for
 * git: `programsAffectedBy`) is matched against the rules of those programs. Another program
 * may carry it when an allow rule of one of them grants that value (`process(npm_config_cache=.npm-cache npm)`
 * lets `node -e` carry `npm_config_cache=.npm-cache`): whatever it reaches through that
 * program is what the policy already lets the affected program have. It is not granted when a
 * deny rule refuses that program outright or with that variable, nor to an affected program
 * itself, whose own rule must grant it.
 */
export class ProgramEnvGrants {
  readonly #allow: readonly Rule[];
  readonly #deny: readonly Rule[];

  constructor(allow: readonly Rule[], deny: readonly Rule[]) {
    this.#allow = allow;
    this.#deny = deny;
  }

  grants(name: string, value: string, request: ProcessRequest): boolean {
    const programs = programsAffectedBy(name);
    if (programs === undefined) return false;
    const runs = [request.executable.requested, request.executable.resolved].map((executable) => path.basename(executable));
    if (runs.some((program) => programs.includes(program))) return false;
    const granted = this.#allow.some((rule) => namesProgram(rule, programs) && assigns(rule, name, value));
    const refused = this.#deny.some((rule) => namesProgram(rule, programs) && (rule.args ?? []).length === 0 && (rule.env === undefined || assigns(rule, name, value)));
    return granted && !refused;
  }
}
