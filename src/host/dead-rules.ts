import type { CapabilityClass } from './capability.js';
import { networkToolNameMatches, type Rule } from './rules.js';
import type { Tool } from './tool.js';

/** What a run can request, as far as rules go: its tools, and the namespaces still to be listed. */
export interface RuleTargets {
  tools: readonly Pick<Tool, 'name' | 'classes'>[];
  /** MCP servers whose tools are not known yet: rules naming their tools may still match. */
  pendingNamespaces: readonly string[];
}

function declares(targets: RuleTargets, ...classes: CapabilityClass[]): boolean {
  return targets.tools.some((tool) => classes.some((name) => tool.classes.includes(name)));
}

/** The namespace a `network_tool` rule names (`ev` in `ev.*` or `ev.get-sum`), if any. */
function namespaceOf(name: string): string | undefined {
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : undefined;
}

/**
 * Why a rule can never match anything the run's tools can request (in `list`, where that
 * matters), or undefined when it might.
 * A class no tool declares is dead; a `network_tool(NAME)` rule is dead unless a tool of that
 * name (or, for `SERVER.PREFIX*`, of that family) is registered or its server is still starting.
 */
export function deadRuleReason(rule: Rule, targets: RuleTargets, list?: 'allow' | 'ask' | 'deny'): string | undefined {
  if (rule.class === 'outside') return declares(targets, 'read', 'write') ? undefined : 'no registered tool reads or writes paths';
  if (rule.class === 'unix_socket') {
    if (list === 'ask')
      return 'a connection to a unix socket cannot be stopped to ask about it, so an ask rule keeps unix sockets closed, as a deny does: allow it or leave it out';
    return declares(targets, 'process', 'shell') ? undefined : 'no registered tool starts processes';
  }
  if (!declares(targets, rule.class) && !(rule.class === 'network_tool' && targets.pendingNamespaces.length > 0)) {
    return `no registered tool makes ${rule.class} requests`;
  }
  if (rule.class !== 'network_tool' || rule.name === undefined) return undefined;
  const pattern = rule.name;
  if (targets.tools.some((tool) => tool.classes.includes('network_tool') && networkToolNameMatches(pattern, tool.name))) return undefined;
  const namespace = namespaceOf(pattern);
  if (namespace !== undefined && targets.pendingNamespaces.includes(namespace)) return undefined;
  const family = namespace === undefined ? [] : targets.tools.filter((tool) => tool.name.startsWith(`${namespace}.`)).map((tool) => tool.name);
  const offered = family.length === 0 ? '' : `; ${namespace} offers ${family.slice(0, 5).join(', ')}${family.length > 5 ? `, … (${family.length} tools)` : ''}`;
  return `no registered tool is named ${pattern}${offered}`;
}
