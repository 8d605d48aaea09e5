import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '../../src/workflow/compile.js';
import { builtinRegistry } from '../../src/workflow/builtin-registry.js';
import { WorkflowSource } from '../../src/workflow/source.js';

const tools = builtinRegistry();

function problemsOf(text: string): string[] {
  const parsed = WorkflowSource.parse('w.yml', text);
  if (!parsed.source) return parsed.problems.map((p) => `${p.line}:${p.col}: ${p.message}`);
  return compileWorkflow(parsed.source, tools).problems.map((p) => `${p.line}:${p.col}: ${p.message}`);
}

const header = 'version: 1\nname: t\n';

describe('YAML syntax problems', () => {
  it('are located where the parser found them, not at 1:1, and each is reported once', () => {
    const problems = problemsOf(`${header}steps:\n  - id: a\n    tool: echo\n    with: { value: "open\n`);
    expect(problems).toEqual(['7:1: Missing closing "quote', '7:1: Flow map in block collection must be sufficiently indented and end with a }']);
    expect(new Set(problems).size).toBe(problems.length);
    expect(problemsOf(`${header}steps:\n  - id: a\n    tool: echo\n      with: 1\n`)[0]).toMatch(/^5:11: /);
  });

  it('name a duplicate key where it appears again', () => {
    expect(problemsOf(`${header}name: u\nsteps: []\n`)).toEqual(['3:1: duplicate key "name": a key may appear only once in a map']);
    expect(problemsOf(`${header}steps:\n  - { id: a, tool: echo, with: { value: 1, "value": 2 } }\n`)).toEqual([
      '4:44: duplicate key "value": a key may appear only once in a map',
    ]);
  });

  it('turn an alias bomb into a located problem instead of a crash', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (const [name, previous] of [
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'c'],
      ['e', 'd'],
    ])
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`);
    const text = `${header}${levels.join('\n')}\nsteps:\n  - { id: s, tool: echo, with: { value: *e } }\n`;
    expect(problemsOf(text)).toEqual(['4:8: its aliases expand to more than 100 references; rho refuses a file that could expand without bound']);
  });
});

describe('unknown names', () => {
  it('suggest the key that was meant, at every level', () => {
    const problems = problemsOf(`version: 1\nnmae: t\ninputs:\n  who: { typ: string }\npolicy: { alow: [read] }\nsteps:\n  - id: a\n    tool: echo\n    wiht: { value: 1 }\n`);
    expect(problems).toEqual(
      expect.arrayContaining([
        '2:1: unknown key "nmae"; did you mean "name"?',
        '4:10: unknown key "typ"; did you mean "type"?',
        '5:11: unknown key "alow"; did you mean "allow"?',
        '9:5: unknown key "wiht"; did you mean "with"?',
        '1:1: missing required key "name"',
      ]),
    );
  });

  it('suggest the tool another runner calls by another name, even when the step has other problems', () => {
    expect(problemsOf(`${header}steps:\n  - { id: a, tool: bash, with: { script: ls } }\n`)).toEqual(['4:20: unknown tool "bash"; did you mean "shell"?']);
    expect(problemsOf(`${header}steps:\n  - { id: a, tool: curl }\n`)).toEqual(['4:20: unknown tool "curl"; did you mean "http_request"?']);
    expect(problemsOf(`${header}steps:\n  - { id: a, tool: sh, wiht: {} }\n`)).toEqual([
      '4:24: unknown key "wiht"; did you mean "with"?',
      '4:20: unknown tool "sh"; did you mean "shell"?',
    ]);
  });
});

describe('client credentials of an HTTP MCP server (oauth:)', () => {
  const withOauth = (oauth: string) =>
    problemsOf(
      `${header}secrets: [S, K]\ntools:\n  - mcp:\n      name: w\n      url: http://127.0.0.1:1/mcp\n      oauth: ${oauth}\nsteps:\n  - { id: a, tool: echo, with: { value: 1 } }\n`,
    );

  it('take the secret or the key from secrets alone, one of them', () => {
    expect(withOauth('{ client_id: a, client_secret: "${{ secrets.S }}", scope: "read write" }')).toEqual([]);
    expect(withOauth('{ client_id: a, private_key: "${{ secrets.K }}", algorithm: ES256 }')).toEqual([]);
    expect(withOauth('{ client_id: a, client_secret: literal-secret }')).toEqual([
      '8:45: tools.0.mcp.oauth.client_secret: takes its value from secrets: write it as "${{ secrets.NAME }}" and declare NAME under secrets:',
    ]);
    const neither = 'tools.0.mcp.oauth: give client_secret (client_secret_basic) or private_key (private_key_jwt), one of them';
    expect(withOauth('{ client_id: a }')).toEqual([`8:14: ${neither}`]);
    expect(withOauth('{ client_id: a, client_secret: "${{ secrets.S }}", private_key: "${{ secrets.K }}" }')).toEqual([`8:14: ${neither}`]);
  });

  it('sign assertions with an asymmetric algorithm, and only with a key', () => {
    expect(withOauth('{ client_id: a, private_key: "${{ secrets.K }}", algorithm: HS256 }')).toEqual([
      '8:74: tools.0.mcp.oauth.algorithm: one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512',
    ]);
    expect(withOauth('{ client_id: a, client_secret: "${{ secrets.S }}", algorithm: ES256 }')).toEqual(['8:76: tools.0.mcp.oauth.algorithm: algorithm goes with private_key']);
  });
});
