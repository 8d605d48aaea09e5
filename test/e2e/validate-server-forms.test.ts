import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, runCli, writeFiles } from '../support/cli.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir()));
afterEach(() => cleanup());

const flow = `version: 1
name: forms
secrets: [S]
tools:
  - mcp:
      name: web
      url: http://127.0.0.1:1/mcp
      oauth:
        client_secret: "\${{ secrets.S }}"
  - mcp: { name: local }
policy:
  allow: ["write(ran)"]
steps:
  - { id: mark, tool: write_file, with: { path: ran, content: "ran" } }
`;

describe('an MCP server declaration rho validate and rho run refuse before anything runs', () => {
  it('names the key its form lacks, where it belongs', async () => {
    await writeFiles(dir, { 'flow.yml': flow });
    const expected = ['flow.yml:9:9: tools.0.mcp.oauth: missing required key "client_id"', 'flow.yml:10:10: tools.1.mcp: missing required key "command" or "url"'];
    for (const args of [
      ['validate', 'flow.yml'],
      ['run', 'flow.yml'],
    ]) {
      const result = await runCli(args, { cwd: dir });
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr.split('\n').filter((line) => line.startsWith('flow.yml:'))).toEqual(expected);
    }
    expect(existsSync(path.join(dir, 'ran'))).toBe(false);
  });
});
