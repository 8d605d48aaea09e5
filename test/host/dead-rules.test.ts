import { describe, expect, it } from 'vitest';
import { deadRuleReason } from '../../src/host/dead-rules.js';
import { parseRule } from '../../src/host/rules.js';

const tools = [
  { name: 'read_file', classes: ['read'] as const },
  { name: 'exec', classes: ['process'] as const },
  { name: 'ev.get-sum', classes: ['network_tool'] as const },
  { name: 'ev.echo', classes: ['network_tool'] as const },
];
const reason = (text: string, pendingNamespaces: string[] = []) => deadRuleReason(parseRule(text), { tools, pendingNamespaces });

describe('rules that can never match', () => {
  it('keeps rules some registered tool can meet', () => {
    for (const text of ['read', 'read(src/**)', 'process(npm)', 'outside', 'network_tool', 'network_tool(ev.*)', 'network_tool(ev.get-*)', 'network_tool(ev.echo)']) {
      expect(reason(text), text).toBeUndefined();
    }
  });

  it('names a network_tool rule that names no tool, with what the server offers', () => {
    expect(reason('network_tool(ev.get-sun)')).toBe('no registered tool is named ev.get-sun; ev offers ev.get-sum, ev.echo');
    expect(reason('network_tool(gone.*)')).toBe('no registered tool is named gone.*');
  });

  it('keeps rules naming a server that is still starting, and only those', () => {
    expect(reason('network_tool(gone.*)', ['gone'])).toBeUndefined();
    expect(reason('network_tool(other.x)', ['gone'])).toBe('no registered tool is named other.x');
  });

  it('names a class no registered tool requests, for any rule class', () => {
    expect(reason('shell')).toBe('no registered tool makes shell requests');
    expect(reason('network(example.org)')).toBe('no registered tool makes network requests');
    expect(deadRuleReason(parseRule('outside'), { tools: [tools[1]!], pendingNamespaces: [] })).toBe('no registered tool reads or writes paths');
  });

  it('keeps unix_socket while a tool starts processes, and names an ask rule for it dead', () => {
    expect(reason('unix_socket')).toBeUndefined();
    expect(deadRuleReason(parseRule('unix_socket'), { tools: [tools[0]!], pendingNamespaces: [] })).toBe('no registered tool starts processes');
    expect(deadRuleReason(parseRule('unix_socket'), { tools, pendingNamespaces: [] }, 'ask')).toMatch(/^a connection to a unix socket cannot be stopped to ask about it/);
  });
});
