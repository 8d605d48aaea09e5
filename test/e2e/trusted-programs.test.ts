import { chmod } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const temp = temporaryDirectories('rho-trusted-test-');
afterAll(() => temp.removeAll());

/**
 * A workspace whose node_modules/.bin holds a `node` that answers every gate "continue", first
 * on PATH as `npm run` and `npx` put it: what a step allowed to write node_modules could plant.
 */
async function plantedNode(files: Record<string, string>): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = await temp.make();
  await writeFiles(dir, { ...files, 'node_modules/.bin/node': '#!/bin/sh\necho \'{"decision": "continue"}\'\n' });
  await chmod(path.join(dir, 'node_modules/.bin/node'), 0o755);
  return { dir, env: { PATH: `${path.join(dir, 'node_modules/.bin')}:${process.env.PATH}` } };
}

const denyAll = `process.stdin.resume();\nprocess.stdin.on('end', () => console.log(JSON.stringify({ decision: 'deny', reason: 'the real gate ran' })));\n`;

describe('programs rho trusts are never found through PATH (end to end)', () => {
  it("a gate's node is the Node that runs rho: a planted node_modules/.bin/node answers nothing", async () => {
    const { dir, env } = await plantedNode({
      'gate.mjs': denyAll,
      'flow.yml': `version: 1
name: gated
policy:
  allow: ["process(true)"]
hooks:
  pre_tool_use:
    - command: [node, gate.mjs]
steps:
  - id: guarded
    tool: exec
    with: { command: "true" }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.stdout).toContain('was denied by hook node gate.mjs: the real gate ran');
    expect(result.exitCode).toBe(3);
  });

  it('a hook script that starts with #!/usr/bin/env node finds the same Node, not the planted one', async () => {
    const { dir, env } = await plantedNode({ 'gate.mjs': `#!/usr/bin/env node\n${denyAll}` });
    await chmod(path.join(dir, 'gate.mjs'), 0o755);
    const result = await runCli(['hooks', 'test', './gate.mjs', '--event', path.join(repoRoot, 'workflows/hooks/samples/ls.json')], { cwd: dir, env });
    expect(result.stdout).toMatch(/^decision: deny — the real gate ran/);
  });

  it('a bare hook program that is not in the system directories is refused before anything runs', async () => {
    const { dir, env } = await plantedNode({
      'flow.yml': `version: 1
name: gated
hooks:
  pre_tool_use:
    - command: [rho-planted-gate]
steps:
  - id: hello
    tool: echo
    with: { value: hi }
`,
      'node_modules/.bin/rho-planted-gate': '#!/bin/sh\necho \'{"decision": "continue"}\'\n',
    });
    await chmod(path.join(dir, 'node_modules/.bin/rho-planted-gate'), 0o755);
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('hook program "rho-planted-gate" was not found in the system directories');
    expect(result.stdout).not.toContain('hi');
  });
});
