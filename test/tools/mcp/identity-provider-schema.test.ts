import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../../src/workflow/builtin-registry.js';
import { compileWorkflow } from '../../../src/workflow/compile.js';
import { WorkflowSource } from '../../../src/workflow/source.js';

/** The problems of a workflow whose one HTTP server has the given `identity_provider:` (YAML flow text). */
function problemsWith(identityProvider: string): string[] {
  const text = `version: 1
name: t
secrets: [S, T]
tools:
  - mcp:
      name: w
      url: https://mcp.example/mcp
      oauth: { client_id: a, client_secret: "\${{ secrets.S }}", identity_provider: ${identityProvider} }
steps:
  - { id: a, tool: echo, with: { value: 1 } }
`;
  const parsed = WorkflowSource.parse('w.yml', text);
  if (!parsed.source) return parsed.problems.map((problem) => problem.message);
  return compileWorkflow(parsed.source, builtinRegistry()).problems.map((problem) => problem.message);
}

const at = 'tools.0.mcp.oauth.identity_provider';

describe('oauth.identity_provider of an HTTP MCP server (cross-app access)', () => {
  it('takes a token endpoint, a client and the ID token from secrets', () => {
    expect(problemsWith('{ token_endpoint: "https://idp.example/token", client_id: rho, id_token: "${{ secrets.T }}" }')).toEqual([]);
    expect(problemsWith('{ token_endpoint: "http://127.0.0.1:8080/token", client_id: rho, client_secret: "${{ secrets.S }}", id_token: "${{ secrets.T }}" }')).toEqual([]);
  });

  it('refuses an ID token or client secret written in the file', () => {
    expect(problemsWith('{ token_endpoint: "https://idp.example/token", client_id: rho, id_token: eyJ.literal.token }')).toEqual([
      `${at}.id_token: takes its value from secrets: write it as "\${{ secrets.NAME }}" and declare NAME under secrets:`,
    ]);
    expect(problemsWith('{ token_endpoint: "https://idp.example/token", client_id: rho, client_secret: hunter2, id_token: "${{ secrets.T }}" }')).toEqual([
      `${at}.client_secret: takes its value from secrets: write it as "\${{ secrets.NAME }}" and declare NAME under secrets:`,
    ]);
  });

  it('sends the ID token over HTTPS only, or to this machine', () => {
    expect(problemsWith('{ token_endpoint: "http://idp.example/token", client_id: rho, id_token: "${{ secrets.T }}" }')).toEqual([
      `${at}.token_endpoint: an https URL (http only for localhost, 127.0.0.1 or [::1])`,
    ]);
  });

  it('refuses an entry without the client or the ID token', () => {
    expect(problemsWith('{ token_endpoint: "https://idp.example/token", client_id: rho }')).not.toEqual([]);
    expect(problemsWith('{ token_endpoint: "https://idp.example/token", id_token: "${{ secrets.T }}" }')).not.toEqual([]);
  });
});
