import { afterAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';
import { runCliEvents } from '../support/cli-events.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

/** A new directory holding `files`. */
async function dirWith(files: Record<string, string>): Promise<string> {
  const dir = await directories.make();
  await writeFiles(dir, files);
  return dir;
}

const sameFile = `version: 1
name: release
tasks:
  build:
    inputs:
      target: { type: string, required: true }
      level: { type: number, default: 2 }
    outputs:
      version: "\${{ steps.stamp.data }}-\${{ inputs.target }}"
    steps:
      - { id: stamp, tool: echo, with: { value: "v\${{ inputs.level }}" } }
      - { id: report, tool: echo, with: { value: "built \${{ inputs.target }} as \${{ steps.stamp.data }}" } }
  release:
    steps:
      - { id: stamp, tool: echo, with: { value: caller } }
      - id: web
        uses: build
        with: { target: web, level: 3 }
      - id: cli
        uses: build
        with: { target: "\${{ steps.stamp.data }}" }
      - { id: show, tool: echo, with: { value: "\${{ steps.web.data.version }} \${{ steps.cli.data.version }} \${{ steps.stamp.data }}" } }
`;

describe.concurrent('uses: steps (end to end)', () => {
  it('runs a task of the same file as a nested group with its inputs, and its outputs are the calling step’s data', async () => {
    const dir = await dirWith({ 'release.yml': sameFile });
    const run = await runCliEvents(['run', 'release.yml', 'release'], { cwd: dir });
    expect(run.exitCode, run.stderr).toBe(0);
    const started = run.events.find((event) => event.type === 'run_started')!;
    expect(started.type === 'run_started' && started.steps.map((step) => [step.id, step.kind])).toEqual([
      ['stamp', undefined],
      ['web/stamp', undefined],
      ['web/report', undefined],
      ['web', 'uses'],
      ['cli/stamp', undefined],
      ['cli/report', undefined],
      ['cli', 'uses'],
      ['show', undefined],
    ]);
    const progress = run.events.flatMap((event) => (event.type === 'step_progress' ? [[event.stepId, event.message]] : []));
    // Step ids are scoped per task: inside, steps.stamp is the called task's own step.
    expect(progress).toContainEqual(['web/report', 'built web as v3']);
    expect(progress).toContainEqual(['cli/report', 'built caller as v2']);
    expect(progress).toContainEqual(['show', 'v3-web v2-caller caller']);
    expect(run.finished.get('web')).toMatchObject({ status: 'success' });
  });

  it('refuses at validation an unknown input, a missing required one and a wrong type, each where it is written', async () => {
    const dir = await dirWith({
      'bad.yml': `version: 1
name: bad
tasks:
  build:
    inputs:
      target: { type: string, required: true }
      level: { type: number, default: 2 }
    steps:
      - { id: stamp, tool: echo, with: { value: x } }
  release:
    steps:
      - id: one
        uses: build
        with: { target: web, levle: 3 }
      - id: two
        uses: build
        with: { level: 3 }
      - id: three
        uses: build
        with: { target: web, level: "3" }
      - id: four
        uses: biuld
`,
    });
    const result = await runCli(['validate', 'bad.yml'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('bad.yml:14:30: task build has no input "levle"; did you mean "level"?');
    expect(result.stderr).toContain('bad.yml:16:15: task build requires input target: give it under with:');
    expect(result.stderr).toContain('bad.yml:20:30: input level of task build is a number, not "3" (write it without quotes)');
    expect(result.stderr).toContain('bad.yml:22:15: uses: biuld: this file has no task "biuld"; did you mean "build"?');
  });

  it('refuses a task that uses itself, directly or through others, with the cycle spelled out', async () => {
    const dir = await dirWith({
      'loop.yml': `version: 1
name: loop
tasks:
  a:
    steps:
      - { id: to-b, uses: b }
  b:
    steps:
      - { id: to-a, uses: a }
  self:
    steps:
      - { id: again, uses: self }
`,
    });
    const result = await runCli(['validate', 'loop.yml'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('loop.yml:9:27: task a uses itself: a → b → a; a task cannot run inside itself');
    expect(result.stderr).toContain('loop.yml:12:28: task self uses itself: self → self; a task cannot run inside itself');
  });
});
