import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

describe.concurrent('rho plan tells what it knows and what it does not', () => {
  it('lists MCP tools as tools of their server, which a plan does not start', async () => {
    const dir = await directories.make();
    const result = await runCli(['plan', path.join(repoRoot, 'workflows/mcp.yml')], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain('no tool named');
    expect(result.stdout).toContain(
      `note: a tool of the MCP server "pad" (node mcp/scratchpad-server.mjs); a plan starts no server, so its requests are known only in a run, after the server's start is authorized`,
    );
  });

  it('says hook gates were not consulted, and consults them with --hooks', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'none.toml': '' });
    const workflow = path.join(repoRoot, 'workflows/hooks.yml');
    const plain = await runCli(['plan', workflow], { cwd: dir });
    expect(plain.exitCode).toBe(0);
    expect(plain.stdout.split('\n')[1]).toBe('Hook gates: not consulted (the workflow declares 1; the policy alone decides below, and --hooks FILE consults them).');
    expect(plain.stdout).toContain('allow: run rm -rf .rho/hooks-demo (rule process(rm))\n');

    const consulted = await runCli(['plan', workflow, '--hooks', 'none.toml'], { cwd: dir });
    expect(consulted.exitCode).toBe(0);
    expect(consulted.stdout.split('\n')[1]).toBe('Hook gates: consulted (1) about every request the policy does not deny.');
    expect(consulted.stdout).toContain('allow: run rm -rf .rho/hooks-demo (rule process(rm)); DENIED by hook block-rm-rf: rm -rf is not allowed here');
    expect(consulted.stdout).toContain('allow: run ls .rho/hooks-demo (rule process(ls)); hook gates: continue');
    const json = JSON.parse((await runCli(['plan', workflow, '--hooks', 'none.toml', '--json'], { cwd: dir })).stdout);
    expect(json.hooks).toEqual({ consulted: true, gates: 1 });
  });

  it('evaluates if: conditions that read only inputs, and names the resources it shows', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'release.yml': `version: 1
name: release
inputs:
  dry: { type: boolean, default: true }
policy: { allow: ["write(out/**)"] }
steps:
  - id: notes
    tool: write_file
    with: { path: out/notes.txt, content: hi, create_dirs: true }
  - id: publish
    if: \${{ !inputs.dry }}
    tool: echo
    with: { value: publish }
  - id: after
    if: \${{ steps.notes.status == 'success' }}
    tool: echo
    with: { value: done }
`,
    });
    const dry = await runCli(['plan', 'release.yml'], { cwd: dir });
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toContain('if: ${{ !inputs.dry }} → false with these inputs: the step would be skipped');
    expect(dry.stdout).toContain("if: ${{ steps.notes.status == 'success' }} (decided at run time)");
    expect(dry.stdout).toContain('resources: exclusive file path out/notes.txt, exclusive file path out');
    const wet = await runCli(['plan', '-i', 'dry=false', 'release.yml'], { cwd: dir });
    expect(wet.stdout).toContain('if: ${{ !inputs.dry }} → true with these inputs');
  });
});
