import { afterAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

describe.concurrent('rho tools NAME', () => {
  it("shows one tool's arguments with types, required and defaults, and its data, from its schemas", async () => {
    const dir = await directories.make();
    const result = await runCli(['tools', 'exec'], { cwd: dir });
    expect([result.exitCode, result.stderr]).toEqual([0, '']);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('exec');
    expect(result.stdout).toContain('origin built-in · classes process · policy resource-aware · mode sync · timeout 3600s');
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}command +string +Program to run: .* \[required\]$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}args +string\[\] +Arguments, passed as they are \(no shell\) \[default: \[\]\]$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}env +map of string +Extra environment variables/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}max_output_bytes +integer .*\[default: 1048576\]$/));
    expect(result.stdout).toMatch(/DATA \(steps\.<id>\.data\)\n {2}exit_code +integer \| null +null when a signal ended it/);

    const nested = await runCli(['tools', 'questionnaire'], { cwd: dir });
    expect(nested.stdout).toMatch(/questions\[\]\.type +"text" \| "choice" \| "multi" \| "confirm" +\[default: "text"\]/);
  });

  it('gives the same with --json, schemas included', async () => {
    const dir = await directories.make();
    const result = await runCli(['tools', 'write_file', '--json'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    const tool = JSON.parse(result.stdout);
    expect(tool).toMatchObject({ name: 'write_file', origin: 'built-in', schema: { required: ['path', 'content'] } });
    expect(Object.keys(tool.data_schema.properties)).toEqual(['path', 'bytes']);
  });

  it('refuses an unknown name with a did-you-mean (exit 2)', async () => {
    const dir = await directories.make();
    const result = await runCli(['tools', 'bash'], { cwd: dir });
    expect([result.exitCode, result.stderr]).toEqual([2, `rho: no tool named "bash"; did you mean "shell"? (rho tools lists them; a workflow's own tools with -f WORKFLOW)`]);
  });
});
