import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/workflow/builtin-registry.js';
import { compileWorkflow } from '../../src/workflow/compile.js';
import { WorkflowSource } from '../../src/workflow/source.js';

// A key that takes one of several forms (an MCP server started or reached by URL, text or a
// list, a name or a map) is reported in the words of the form the value was meant to have.

const tools = builtinRegistry();

function problemsOf(text: string): string[] {
  const parsed = WorkflowSource.parse('w.yml', text);
  return compileWorkflow(parsed.source!, tools).problems.map((p) => `${p.line}:${p.col}: ${p.message}`);
}

/** The text of the file from where a problem is located. */
function textAt(source: string, problem: string): string {
  const [line, col] = problem.split(':').map(Number) as [number, number];
  return source.split('\n')[line - 1]!.slice(col - 1);
}

const header = 'version: 1\nname: t\nsecrets: [S, T]\n';
const step = 'steps:\n  - { id: a, tool: echo, with: { value: 1 } }\n';

describe('an MCP server (stdio or HTTP)', () => {
  const server = (body: string) => `${header}tools:\n  - mcp:\n${body}${step}`;

  it('with url: is an HTTP server: a key missing under its oauth: is named where it belongs', () => {
    const text = server('      name: w\n      url: http://127.0.0.1:1/mcp\n      oauth:\n        client_secret: "${{ secrets.S }}"\n');
    const problems = problemsOf(text);
    expect(problems).toEqual(['9:9: tools.0.mcp.oauth: missing required key "client_id"']);
    expect(textAt(text, problems[0]!)).toBe('client_secret: "${{ secrets.S }}"');
  });

  it('names the key its identity_provider lacks', () => {
    const text = server(
      '      name: w\n      url: http://127.0.0.1:1/mcp\n      oauth:\n        client_id: a\n        client_secret: "${{ secrets.S }}"\n        identity_provider: { token_endpoint: "https://idp.example/token", client_id: b }\n',
    );
    const problems = problemsOf(text);
    expect(problems).toEqual(['11:28: tools.0.mcp.oauth.identity_provider: missing required key "id_token"']);
    expect(textAt(text, problems[0]!)).toMatch(/^\{ token_endpoint/);
  });

  it('suggests the key a misspelt one under oauth: meant', () => {
    expect(problemsOf(server('      name: w\n      url: http://127.0.0.1:1/mcp\n      oauth: { client_id: a, client_secert: "${{ secrets.S }}" }\n'))).toEqual([
      '8:30: unknown key "client_secert"; did you mean "client_secret"?',
      '8:14: tools.0.mcp.oauth: give client_secret (client_secret_basic) or private_key (private_key_jwt), one of them',
    ]);
  });

  it('with command: is a server rho starts: its own issues are reported, not the HTTP form’s', () => {
    expect(problemsOf(server('      name: w\n      command: srv\n'))).toEqual(['7:16: tools.0.mcp.command: Invalid input: expected array, received string']);
  });

  it('without either, says it needs one of them, beside what both forms find wrong', () => {
    expect(problemsOf(server('      name: w\n'))).toEqual(['6:7: tools.0.mcp: missing required key "command" or "url"']);
    expect(problemsOf(server('      name: Bad\n'))).toEqual([
      '6:13: tools.0.mcp.name: server names use lower case letters, digits, _ and -, starting with a letter or digit',
      '6:7: tools.0.mcp: missing required key "command" or "url"',
    ]);
  });

  it('with keys of both forms, says they do not go together', () => {
    expect(problemsOf(server('      name: w\n      command: [srv]\n      url: http://127.0.0.1:1/mcp\n'))).toEqual([
      '6:7: tools.0.mcp: "url" and "command" belong to different forms; keep the one meant',
    ]);
    expect(problemsOf(server('      name: w\n      command: [srv]\n      url: http://127.0.0.1:1/mcp\n      env: { A: 1 }\n'))).toEqual([
      '7:7: "command" belongs to another form of tools.0.mcp than the keys beside it; keep one form\'s keys',
      '9:7: "env" belongs to another form of tools.0.mcp than the keys beside it; keep one form\'s keys',
    ]);
  });

  it('that fits both forms as badly lists what each finds wrong', () => {
    expect(problemsOf(server('      name: w\n      command: srv\n      url: 5\n'))).toEqual([
      '6:7: tools.0.mcp: fits none of its forms: [command: Invalid input: expected array, received string; unknown key "url"] or [url: Invalid input: expected string, received number; unknown key "command"]',
    ]);
  });

  it('a misspelt key of a tool source is suggested from every form', () => {
    expect(problemsOf(`${header}tools:\n  - modul: ./tools.ts\n${step}`)).toEqual(['5:5: unknown key "modul"; did you mean "module"?']);
  });
});

describe('other keys of several forms', () => {
  it('name the kinds of value they take when the value is of none of them', () => {
    expect(problemsOf(`${header}env: { A: {} }\n${step}`)).toEqual(['4:11: env.A: expected a string, a number or a boolean']);
    expect(problemsOf(`${header}steps:\n  - { id: a, tool: echo, with: { value: 1 }, if: 5, needs: 3 }\n`)).toEqual([
      '5:60: steps.0.needs: expected a string or a list',
      '5:50: steps.0.if: expected a string or a boolean',
    ]);
    expect(problemsOf(`${header}steps:\n  - { id: a, tool: echo, with: { value: 1 }, matrix: { include: 5 } }\n`)).toEqual([
      '5:65: steps.0.matrix.include: expected a list or a string',
    ]);
  });

  it('suggest the key of the map form that was meant', () => {
    expect(problemsOf(`${header}policy:\n  process_env: { inherit_onyl: [A] }\n${step}`)).toEqual(['5:18: unknown key "inherit_onyl"; did you mean "inherit_only"?']);
    expect(problemsOf(`${header}steps:\n  - { id: a, tool: echo, with: { value: 1 }, retry: { attempts: 2, dealy: 1s } }\n`)).toEqual([
      '5:68: unknown key "dealy"; did you mean "delay"?',
    ]);
  });

  it('report the issue inside the map form of remote_cache:', () => {
    expect(problemsOf(`${header}remote_cache: { api: 1 }\n${step}`)).toEqual(['4:22: remote_cache.api: Invalid input: expected string, received number']);
  });
});
