import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { builtinTools } from '../../src/tools/index.js';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

describe.concurrent('step data', () => {
  it('after a failed or timed-out process step, data holds its exit code, bounded output and timed_out, output its text', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'fail.yml': `version: 1
name: fail
policy: { allow: [shell, "write(out/**)"] }
steps:
  - id: bad
    tool: shell
    with: { script: "echo out; echo err >&2; exit 3" }
    continue_on_error: true
  - id: slow
    tool: exec
    with: { command: sh, args: [-c, "echo started; sleep 5"] }
    timeout: 500ms
    continue_on_error: true
  - id: keep
    tool: write_file
    with:
      path: out/data.json
      create_dirs: true
      content: '{"bad": \${{ toJSON(steps.bad.data) }}, "bad_output": \${{ toJSON(steps.bad.output) }}, "slow": \${{ toJSON(steps.slow.data) }}}'
  - id: broken
    tool: shell
    with: { script: "echo 'no such thing' >&2; exit 7" }
  - id: report
    if: \${{ failure() }}
    tool: write_file
    with: { path: out/failure.txt, content: "\${{ steps.broken.data.exit_code }} \${{ steps.broken.data.stderr }}" }
`,
    });
    const result = await runCli(['run', 'fail.yml', '--allow', 'process(sh)'], { cwd: dir });
    expect(result.exitCode).toBe(1);
    const kept = JSON.parse(await readFile(path.join(dir, 'out/data.json'), 'utf8'));
    expect(kept.bad).toEqual({ exit_code: 3, stdout: 'out\n', stderr: 'err\n', truncated: false, timed_out: false });
    expect(kept.bad_output).toBe('out\n');
    expect(kept.slow).toEqual({ exit_code: null, stdout: 'started\n', stderr: '', truncated: false, timed_out: true });
    expect(await readFile(path.join(dir, 'out/failure.txt'), 'utf8')).toBe('7 no such thing\n');
  });

  it('the built-in tools return the data their declared shapes say', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'src/a.txt': 'alpha\nbeta\n',
      'shapes.yml': `version: 1
name: shapes
policy: { allow: [read, "write(src/**)", "write(out/**)", shell, "process(true)"] }
steps:
  - { id: echo, tool: echo, with: { value: { any: [1] } } }
  - { id: read_file, tool: read_file, with: { path: src/a.txt } }
  - { id: write_file, tool: write_file, with: { path: src/b.txt, content: "x\\n" } }
  - { id: edit_file, tool: edit_file, with: { path: src/b.txt, edits: [{ old: x, new: y }] } }
  - { id: list_files, tool: list_files, with: { path: src } }
  - { id: search_files, tool: search_files, with: { pattern: beta, path: src } }
  - { id: exec, tool: exec, with: { command: "true" } }
  - { id: shell, tool: shell, with: { script: "echo hi" } }
  - id: keep
    tool: write_file
    with:
      path: out/shapes.json
      create_dirs: true
      content: '{"read_file": \${{ toJSON(steps.read_file.data) }}, "write_file": \${{ toJSON(steps.write_file.data) }}, "edit_file": \${{ toJSON(steps.edit_file.data) }}, "list_files": \${{ toJSON(steps.list_files.data) }}, "search_files": \${{ toJSON(steps.search_files.data) }}, "exec": \${{ toJSON(steps.exec.data) }}, "shell": \${{ toJSON(steps.shell.data) }}}'
`,
    });
    const result = await runCli(['run', 'shapes.yml'], { cwd: dir });
    expect([result.exitCode, result.stderr]).toEqual([0, '']);
    const shapes = JSON.parse(await readFile(path.join(dir, 'out/shapes.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    for (const [tool, data] of Object.entries(shapes)) {
      const schema = builtinTools().find((each) => each.name === tool)?.data as z.ZodObject;
      expect(schema.safeParse(data).success, tool).toBe(true);
      expect(Object.keys(schema.shape), tool).toEqual(expect.arrayContaining(Object.keys(data)));
    }
  });

  it('a reference to a field the tool never returns is a validation warning, not a silent null', async () => {
    const dir = await directories.make();
    await writeFiles(dir, {
      'typo.yml': `version: 1
name: typo
policy: { allow: [shell] }
steps:
  - { id: build, tool: shell, with: { script: "exit 0" } }
  - { id: show, tool: echo, with: { value: "\${{ steps.build.data.exitcode }}" } }
`,
    });
    const warning = 'typo.yml:6:44: warning: steps.build.data.exitcode: shell has no field "exitcode" in its data, so this reads as null; did you mean "exit_code"?';
    const validated = await runCli(['validate', 'typo.yml'], { cwd: dir });
    expect([validated.exitCode, validated.stderr]).toEqual([0, warning]);
    const run = await runCli(['run', 'typo.yml'], { cwd: dir });
    expect([run.exitCode, run.stderr]).toEqual([0, warning]);
  });
});
