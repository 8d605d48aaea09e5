import { describe, expect, it } from 'vitest';
import { deadFileRuleWarnings, deadFlagRuleWarnings, namesServer } from '../../src/workflow/rule-warnings.js';
import { workflowSchema } from '../../src/workflow/schema.js';
import { WorkflowSource } from '../../src/workflow/source.js';

const tools = [
  { name: 'exec', classes: ['process'] as const },
  { name: 'ev.echo', classes: ['network_tool'] as const },
];
const targets = { tools, pendingNamespaces: [] };

describe('warnings for rules that can never match', () => {
  it('names the flag of each dead rule given on the command line, once per list, and keeps live ones quiet', () => {
    const rules = { allow: ['unix_socket', 'network_tool(ev.*)'], ask: ['unix_socket'], deny: ['skill(x)', 'not a rule('] };
    expect(deadFlagRuleWarnings(rules, targets)).toEqual([
      'rho: warning: --ask "unix_socket" can never match: a connection to a unix socket cannot be stopped to ask about it, so an ask rule keeps unix sockets closed, as a deny does: allow it or leave it out',
      'rho: warning: --deny "skill(x)" can never match: no registered tool makes skill requests',
    ]);
  });

  it('places each dead rule of the file at its line, naming its list', () => {
    const text = [
      'version: 1',
      'name: w',
      'policy:',
      '  allow:',
      '    - network_tool(ev.*)',
      '  deny:',
      '    - skill(x)',
      'steps:',
      '  - tool: exec',
      '    with: { command: true }',
      '',
    ].join('\n');
    const source = WorkflowSource.parse('rho.yml', text).source!;
    const file = workflowSchema.parse(source.toData());
    expect(deadFileRuleWarnings(source, file, targets)).toEqual([
      { file: 'rho.yml', line: 7, col: 7, message: 'warning: deny rule "skill(x)" can never match: no registered tool makes skill requests' },
    ]);
  });

  it('checks only the rules it is limited to', () => {
    const rules = { allow: ['network_tool(gone.x)', 'network_tool(ev.missing)'], ask: [], deny: [] };
    expect(deadFlagRuleWarnings(rules, targets, namesServer('ev'))).toEqual([
      'rho: warning: --allow "network_tool(ev.missing)" can never match: no registered tool is named ev.missing; ev offers ev.echo',
    ]);
  });
});
