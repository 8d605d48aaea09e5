import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, runCli, writeFiles } from '../support/cli.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir()));
afterEach(() => cleanup());

const flow = `version: 1
name: notes
tools:
  - module: ./mod.mjs
steps:
  - { id: a, tool: planted }
tasks:
  build:
    - id: compile
      tool: planted
      matrix: { os: [linux, macos] }
    - { id: b, tool: ecko }
  test:
    steps:
      - { id: t, tool: planted }
      - { id: e, tool: echo, with: { value: 1 } }
`;

describe('rho validate FILE', () => {
  it('notes the uninspected steps of every task, each naming its task, a matrix step once', async () => {
    await writeFiles(dir, { 'flow.yml': flow, 'mod.mjs': 'export default {};\n' });
    const validated = await runCli(['validate', 'flow.yml'], { cwd: dir });
    expect(validated.exitCode, validated.stderr).toBe(0);
    const notes = validated.stderr.split('\n').filter((line) => line.includes('was not inspected'));
    expect(notes).toEqual([
      'flow.yml:6:20: note: step a: tool planted was not inspected (it is not built-in), so its arguments were not checked',
      'flow.yml:10:13: note: step compile of task build: tool planted was not inspected (it is not built-in), so its arguments were not checked',
      'flow.yml:12:22: note: step b of task build: tool ecko was not inspected (it is not built-in), so its arguments were not checked; did you mean "echo"?',
      'flow.yml:15:24: note: step t of task test: tool planted was not inspected (it is not built-in), so its arguments were not checked',
    ]);
  });

  it('notes the steps of a file that has named tasks alone', async () => {
    await writeFiles(dir, { 'flow.yml': flow.replace('steps:\n  - { id: a, tool: planted }\n', ''), 'mod.mjs': 'export default {};\n' });
    const validated = await runCli(['validate', 'flow.yml'], { cwd: dir });
    expect(validated.exitCode, validated.stderr).toBe(0);
    expect(validated.stderr).toContain('flow.yml:8:13: note: step compile of task build: tool planted was not inspected');
    expect(validated.stdout.trim()).toBe('flow.yml: valid');
  });
});
